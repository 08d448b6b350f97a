import type { Attempt, Delivery, Webhook } from './schemas.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from './tables.js';

// Rows as the API shows them: the secrets never leave here.

export function toWebhook(row: WebhookEndpointRow, at: Date): Webhook {
  const overlap = row.previous_valid_until !== null && Date.parse(row.previous_valid_until) > at.getTime();
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    project_id: row.project_id,
    types: row.types === null ? null : (JSON.parse(row.types) as string[]),
    format: row.format,
    description: row.description,
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    secret_overlap_until: overlap ? row.previous_valid_until : null,
  };
}

export function toAttempt(row: WebhookAttemptRow): Attempt {
  return {
    at: row.at,
    status_code: row.status_code,
    latency_ms: row.latency_ms,
    response_body: row.response_body,
    error: row.error,
  };
}

export function toDelivery(row: WebhookDeliveryRow, attempts: readonly WebhookAttemptRow[]): Delivery {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    type: row.type,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
    attempts: attempts.map(toAttempt),
  };
}
