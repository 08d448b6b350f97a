import { ValidationError } from '../shared/errors.js';

// What webhooks ask of the rest of the desk, as narrow ports the composition root fills: the
// outbound guard that vets an address, and the HTTP POST that carries a delivery.

/** The address may not be called (scheme, or a host the outbound guard refuses). */
export class UrlRefused extends ValidationError {
  constructor(readonly reason: string) {
    super([{ field: 'url', message: reason }]);
  }
}

/** Resolves when `url` may be called; throws UrlRefused otherwise. */
export type UrlGuard = (url: URL) => Promise<void>;

export interface TransportResult {
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  /** The answer's Retry-After in seconds (from seconds or an HTTP date); null without one. */
  retry_after_s: number | null;
  /** Why the attempt failed before or without an answer (timeout, refused, redirect); null otherwise. */
  error: string | null;
}

/** One POST; never throws: a failure is in the result. */
export type WebhookTransport = (url: string, headers: Record<string, string>, body: string) => Promise<TransportResult>;

/** Appends an event to the desk's log (webhook.disabled), in its own transaction. */
export type AppendEvent = (type: string, data: Record<string, unknown>, at: string) => Promise<void>;

/** Mails a person about the desk itself (notify's notice); resolves false when no mail went. */
export type TellPerson = (name: string, subject: string, text: string) => Promise<boolean>;

/**
 * The body an item-scoped endpoint (an A2A push config) gets for an event about its item, or null
 * when that event is not one it hears. Filled by the composition root (A2A's task as JSON);
 * `itemStatus` is the item's status as of the event, as the fan-out has followed it.
 */
export type ScopedBody = (
  event: { type: string; created_at: string; data: Record<string, unknown> | null },
  endpointId: string,
  itemStatus: string | undefined,
) => Promise<string | null>;
