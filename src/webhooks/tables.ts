import type { Generated, Selectable } from 'kysely';
import type { DeliveryStatus, WebhookFormat, DisabledReason } from './schemas.js';

// The webhook tables (migrations/*/024_webhooks.sql, 030_a2a_push.sql). Lists are JSON text; times are ISO text on
// both databases; `enabled` is 0 or 1 on both.

export interface WebhookEndpointRow {
  id: string;
  url: string;
  events: string;
  project_id: string | null;
  types: string | null;
  format: WebhookFormat;
  description: string | null;
  enabled: number;
  disabled_reason: DisabledReason | null;
  failing_since: string | null;
  secret: string;
  previous_secret: string | null;
  previous_valid_until: string | null;
  claimed_until: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** Set: the endpoint hears this item alone, in its scope's body (an A2A push config, 030). */
  work_item_id: string | null;
  /** Sealed JSON of extra headers each delivery carries; null for none. */
  headers: string | null;
}

export interface WebhookDeliveryTable {
  seq: Generated<number>;
  id: string;
  endpoint_id: string;
  event_id: number | null;
  type: string;
  body: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookAttemptTable {
  id: Generated<number>;
  delivery_id: string;
  at: string;
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  error: string | null;
}

export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptTable>;

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointRow;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  webhook_fan_out: { id: number; event_id: number };
  webhook_item_status: { work_item_id: string; status: string };
}

declare module '../shared/db/schema.js' {
  interface DatabaseSchema extends WebhookTables {}
}
