// notify's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { composeQuestionMail, type ComposedMail, type QuestionMailInput } from './outbox/compose.js';
export type { MailTokens, RecipientsPort } from './outbox/ports.js';
export { registerNotificationRoutes, registerTestMailRoute } from './outbox/routes.js';
export { RETRY_POLICY, type OutboxSender, type RetryPolicy } from './outbox/sender.js';
export { SMTP_TIMEOUTS, type SmtpTimeouts } from './outbox/transport.js';
export { createNotify, type Notify, type NotifyDeps } from './setup.js';
export type { SendNotice } from './outbox/notice-mail.js';
export { SCHEDULE_EVERY_MS, type NotifyScheduler, type PassResult } from './schedule/scheduler.js';
export { DEFAULT_DIGEST_AT, DEFAULT_TZ } from './schedule/local-time.js';
export { composeDigestMail, type DigestEntry, type DigestMailInput } from './schedule/digest-mail.js';
export {
  decideReply,
  ownText,
  type RepliedQuestion,
  type ReplyMessage,
  type ReplyVerdict,
} from './replies/decide-reply.js';
export { readAnswer, readReview, type ReplyAnswer, type ReviewDecision } from './replies/answers.js';
export {
  normalizeAddress,
  normalizeMessageId,
  replyKeys,
  sameAddress,
  senderVerdict,
  SENDER_VERDICTS,
  type ReplyEnvelope,
  type ReplyKeys,
  type SenderVerdict,
} from './replies/reply-keys.js';
export { replyText } from './replies/reply-text.js';
export { NotOwnProfile, PersonNotFound, UnknownTimeZone } from './people/errors.js';
export {
  recipientsFor,
  type Recipient,
  type RecipientItem,
  type RecipientProject,
  type RecipientQuestion,
} from './people/recipients.js';
export { registerPeopleRoutes } from './people/routes.js';
export { createPeopleService, isKnownTimeZone, type PeopleService } from './people/service.js';
export { createPeopleStore } from './people/store/index.js';
export type { PeopleStore, PeopleTables, PersonRow } from './people/store/port.js';
export { registerAnswerLinkRoutes } from './links/routes.js';
export { answerLinkUrl } from './links/schemas.js';
export { createAnswerLinks, type AnswerLinks } from './links/service.js';
export { LINK_SECRET_NAME, LinkSecretSealed, loadLinkSecret, type LinkSecretSource } from './links/secret.js';
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
