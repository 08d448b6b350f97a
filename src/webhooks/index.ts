// webhooks' entry: what the composition root may import of it (wire vocabulary: contract.ts).

export { registerWebhookRoutes } from './routes.js';
export { createWebhooks, type Webhooks, type WebhooksDeps } from './setup.js';
export {
  createHttpTransport,
  SEND_TIMEOUT_MS,
  type HttpTransport,
  type HttpTransportOptions,
} from './http-transport.js';
export {
  UrlRefused,
  type AppendEvent,
  type ScopedBody,
  type TransportResult,
  type UrlGuard,
  type WebhookTransport,
} from './ports.js';
export type { ScopedEndpoint } from './service.js';
export type { WebhookSender, DeliveryOutcome } from './sender.js';
export { RETRY_SCHEDULE_MS, MAX_RETRY_AFTER_MS, FAILING_FOR_MS } from './schedule.js';
export { newSecret, signature, signedHeaders } from './signing.js';
export { WebhookNotFound, DeliveryNotFound, UnknownEventName } from './errors.js';
