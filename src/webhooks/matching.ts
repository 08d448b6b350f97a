import { slackBody } from './format-slack.js';
import { ALL_EVENTS, STATUS_EVENT_NAMES } from './event-names.js';
import type { WebhookFormat } from './schemas.js';
import type { WebhookEndpointRow } from './tables.js';

// Which endpoints an event goes to, under which name, and the body it is sent as. A work.updated
// that moved its item to another status also carries that status's name (work.completed, …).

export interface LoggedEvent {
  type: string;
  created_at: string;
  data: Record<string, unknown> | null;
}

/** An endpoint's filters, read once per fan-out pass. */
export interface Subscription {
  row: WebhookEndpointRow;
  events: ReadonlySet<string>;
  types: ReadonlySet<string> | null;
}

export function subscriptionOf(row: WebhookEndpointRow): Subscription {
  return {
    row,
    events: new Set(JSON.parse(row.events) as string[]),
    types: row.types === null ? null : new Set(JSON.parse(row.types) as string[]),
  };
}

/** The name a status change adds; null when the status did not change (or is not a work status). */
export function statusEventName(previous: string | null | undefined, status: unknown): string | null {
  if (typeof status !== 'string' || previous === status) return null;
  return (STATUS_EVENT_NAMES as Record<string, string>)[status] ?? null;
}

/**
 * The name the endpoint hears the event by, or null when it does not want it. The status's own
 * name wins where the endpoint lists it; "*" hears the stream's name (its data has the status).
 */
export function deliveredName(sub: Subscription, event: LoggedEvent, statusName: string | null): string | null {
  if (sub.row.created_at > event.created_at) return null;
  // An item-scoped endpoint (an A2A push config) hears its item's status changes and questions.
  if (sub.row.work_item_id !== null) {
    if (event.type === 'question.asked') return event.data?.work_item_id === sub.row.work_item_id ? event.type : null;
    return event.type === 'work.updated' && event.data?.id === sub.row.work_item_id ? statusName : null;
  }
  if (!wantsItem(sub, event)) return null;
  if (statusName !== null && sub.events.has(statusName)) return statusName;
  if (sub.events.has(ALL_EVENTS) || sub.events.has(event.type)) return event.type;
  return null;
}

/**
 * The project and type filters: work and conversation events carry the item's project and
 * type; project events are their project; a deletion names only the item, so it always passes,
 * as do the webhooks' own events.
 */
function wantsItem(sub: Subscription, event: LoggedEvent): boolean {
  const project = sub.row.project_id;
  const types = sub.types;
  if (project === null && types === null) return true;
  if (event.type === 'work.deleted' || event.type.startsWith('webhook.')) return true;
  const data = event.data;
  if (data === null) return false;
  if (event.type.startsWith('project.')) return types === null && (project === null || data.id === project);
  return (project === null || data.project_id === project) && (types === null || types.has(String(data.type)));
}

/** The bytes sent: {type, timestamp, data}, or a Slack-compatible {text, blocks}. */
export function deliveryBody(
  format: WebhookFormat,
  name: string,
  event: LoggedEvent,
  publicUrl: string | null,
): string {
  if (format === 'slack')
    return JSON.stringify(slackBody({ type: name, timestamp: event.created_at, data: event.data }, publicUrl));
  return JSON.stringify({ type: name, timestamp: event.created_at, data: event.data });
}
