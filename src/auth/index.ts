// auth's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export {
  CSRF_PARAMETER,
  DOCUMENT_SECURITY,
  documentCsrf,
  hostName,
  installAccessControl,
  publicScope,
  SECURITY_SCHEMES,
  type Gate,
} from './access-hook.js';
export type { Principal } from './authenticator.js';
export { createClassifyBudget, type ClassifyBudget } from './classify-budget.js';
export {
  actingAgent,
  assertMayChangeItem,
  assertMayDispatch,
  assertMayLowerReview,
  assertMaySubmitBelowReview,
  assertNotOwnReviewer,
  isHolder,
  isPerson,
  requireActingAgent,
} from './policy.js';
export { registerSessionRoutes, registerTokenRoutes } from './routes.js';
export { createAuthParts, type AuthParts } from './setup.js';
export { createAuthStore } from './store/index.js';
export { REVOCATIONS_CHANNEL } from './store/port.js';
export { createTokenService } from './token-service.js';
