import type {
  DELIVERY_STATUSES as SERVER_DELIVERY_STATUSES,
  Delivery,
  DeliveryStatus,
  Webhook,
} from '../../../src/webhooks/schemas.ts';
import { api, withQuery } from './api.ts';
import { formatAgo } from './format.ts';

// Webhooks as the page reads them: the endpoints' addresses in the API and the words for their
// state. Every string here that came from the service is shown as text, never as markup. The
// schemas bring TypeBox, so the statuses are copied here; `satisfies` fails the check if they differ.

export type { Attempt, CreatedWebhook, Delivery, DeliveryStatus, Webhook } from '../../../src/webhooks/schemas.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const satisfies typeof SERVER_DELIVERY_STATUSES;
export { ALL_EVENTS } from '../../../src/webhooks/event-names.ts';
/** The most of a response body the log shows (the service keeps no more). */
export const BODY_SHOWN = 1024;

export const webhookPath = (id: string, rest = '') => `/webhooks/${encodeURIComponent(id)}${rest}`;

const REASONS: Record<NonNullable<Webhook['disabled_reason']>, string> = {
  gone: 'the endpoint answered 410 Gone',
  failing: 'every delivery failed for days',
  admin: 'an admin disabled it',
};

/** "Enabled", "Enabled, failing since 5 minutes ago", "Disabled: the endpoint answered 410 Gone". */
export function stateOf(w: Webhook, now = Date.now()): { label: string; tone: 'ok' | 'warn' | 'off' } {
  if (!w.enabled) return { label: `Disabled: ${REASONS[w.disabled_reason ?? 'admin']}`, tone: 'off' };
  if (w.failing_since) return { label: `Enabled, failing since ${formatAgo(w.failing_since, now)}`, tone: 'warn' };
  return { label: 'Enabled', tone: 'ok' };
}

export interface DeliveryPage {
  deliveries: Delivery[];
  next: string | null;
}

export async function loadDeliveries(
  id: string,
  status: DeliveryStatus | '',
  cursor: string | null,
  signal?: AbortSignal,
): Promise<DeliveryPage> {
  const r = await api<Delivery[]>(
    'GET',
    withQuery(webhookPath(id, '/deliveries'), { status, cursor }),
    undefined,
    signal,
  );
  return { deliveries: r.data, next: r.nextCursor };
}

/** Comma- or space-separated work types, each once. */
export function parseTypes(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((t) => t !== ''))];
}
