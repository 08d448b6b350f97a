// notify's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { registerAnswerLinkRoutes } from './links/routes.js';
export { answerLinkUrl } from './links/schemas.js';
export { createAnswerLinks, type AnswerLinks } from './links/service.js';
export { LINK_SECRET_NAME, loadLinkSecret, type LinkSecretSource } from './links/secret.js';
export {
  createLinkTokens,
  TOKEN_REFUSALS,
  type AnswerLinkClaims,
  type LinkTokens,
  type ReplyClaims,
  type TokenRefusal,
  type Verified,
} from './links/tokens.js';
export { replyAddress, replyTokenFrom } from './links/reply-address.js';
