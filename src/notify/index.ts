// notify's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { composeQuestionMail, type ComposedMail, type QuestionMailInput } from './outbox/compose.js';
export { NOTIFY_MODES, type LinkTokens, type NotifyMode, type Recipient, type RecipientsPort } from './outbox/ports.js';
export { registerNotificationRoutes } from './outbox/routes.js';
export { RETRY_POLICY, type OutboxSender, type RetryPolicy } from './outbox/sender.js';
export { SMTP_TIMEOUTS, type SmtpTimeouts } from './outbox/transport.js';
export { createNotify, type Notify, type NotifyDeps } from './setup.js';
