// Webhooks on the wire, as the API contract gives them, until the service's own schemas
// (src/webhooks/contract.ts) are on this branch to be read as types instead.

export type WebhookFormat = 'standard' | 'slack';
/** gone: it answered 410; failing: it failed for days on end; admin: PATCH enabled:false. */
export type DisabledReason = 'gone' | 'failing' | 'admin';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  project_id: string | null;
  types: string[] | null;
  format: WebhookFormat;
  description: string | null;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  failing_since: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  secret_overlap_until: string | null;
}

export interface CreatedWebhook extends Webhook {
  /** whsec_…: shown this once. */
  secret: string;
}

export interface WebhookDetail extends Webhook {
  pending: number;
  oldest_pending_at: string | null;
}

export interface CreateWebhook {
  url: string;
  events: string[];
  project_id?: string | null;
  types?: string[] | null;
  format?: WebhookFormat;
  description?: string | null;
}

export type UpdateWebhook = Partial<CreateWebhook> & { enabled?: boolean };

export interface RotatedSecret {
  id: string;
  secret: string;
  previous_valid_until: string;
}

export interface Attempt {
  at: string;
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  error: string | null;
}

export interface Delivery {
  id: string;
  endpoint_id: string;
  event_id: number | null;
  type: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  attempts: Attempt[];
}

export interface DeliveriesQuery {
  status?: DeliveryStatus;
  limit?: number;
  cursor?: string;
}
