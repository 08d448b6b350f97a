import type { Logger } from 'pino';
import type { Database } from '../shared/db/database.js';
import { contiguousPrefix, type EventLog, type StoredEvent } from '../work/index.js';
import { type LoggedEvent, deliveredName, deliveryBody, statusEventName, subscriptionOf } from './matching.js';
import type { ScopedBody } from './ports.js';
import { newMessageId } from './signing.js';
import type { WebhookStatementsOn } from './store/index.js';
import type { ItemStatus, NewDelivery, WebhookStatements } from './store/port.js';

// The fan-out: reads the event log from its cursor and writes one delivery per event per endpoint
// that wants it, moving the cursor in the same transaction, so an event is turned into deliveries
// once whatever crashes. The log is the outbox: only committed events are read.

const BATCH = 500;
const BATCH_BYTES = 1024 * 1024;
/** The events whose data is a work item (a comment's is the comment). */
const ITEM_EVENTS = new Set(['work.created', 'work.updated', 'work.deleted']);

/** The item an event is about: a work event's own id, or a question's item (an A2A push hears it). */
function itemOf(type: string, data: Record<string, unknown> | null | undefined): string | null {
  const id = ITEM_EVENTS.has(type) ? data?.id : type === 'question.asked' ? data?.work_item_id : null;
  return typeof id === 'string' ? id : null;
}

/** Another instance moved the cursor while this one read: it wrote these deliveries. */
class CursorMoved extends Error {}

export interface FanOutDeps {
  database: Pick<Database, 'transaction'>;
  log: EventLog;
  top: WebhookStatements;
  statementsOn: WebhookStatementsOn;
  publicUrl: string | null;
  logger: Logger;
  /** The body of an item-scoped endpoint's delivery; null: the event is not sent to it. */
  scopedBody: ScopedBody;
  /** Told when deliveries were written. */
  written: () => void;
}

export interface FanOut {
  /** Reads on until the log's head (or a gap not yet settled); resolves with the deliveries written. */
  run(): Promise<number>;
  /** The cursor: the events above it are still to be read. */
  cursor(): Promise<number>;
  /** Whether the last read found an enabled endpoint (true until the first read). */
  watching(): boolean;
}

function parsed(event: StoredEvent): LoggedEvent {
  let data: Record<string, unknown> | null = null;
  try {
    const value: unknown = JSON.parse(event.data);
    if (value !== null && typeof value === 'object') data = value as Record<string, unknown>;
  } catch {
    // An event whose data is not JSON goes out with null data.
  }
  return { type: event.type, created_at: event.created_at, data };
}

export function createFanOut({
  database,
  log,
  top,
  statementsOn,
  publicUrl,
  logger,
  scopedBody,
  written,
}: FanOutDeps): FanOut {
  /**
   * As in the event hub (src/work/events/hub.ts): on PostgreSQL an id can become visible after a
   * higher one, so the fan-out stops at a gap and steps over it only once every transaction
   * running when it was seen has ended: the missing id then exists or never will.
   */
  let settled = 0;
  let pendingGap: { below: number; writers: string } | null = null;
  let watching = true;

  /** One batch; null when there was nothing ready to read. */
  async function batch(): Promise<number | null> {
    if (pendingGap && (await log.ended(pendingGap.writers))) {
      settled = Math.max(settled, pendingGap.below);
      pendingGap = null;
    }
    const cursor = await top.fanOutCursor();
    const events = await log.after(cursor, BATCH, BATCH_BYTES);
    const ready = contiguousPrefix(cursor, events, settled);
    if (ready.length < events.length && !pendingGap) {
      pendingGap = { below: events[ready.length]!.id, writers: await log.writersNow() };
    }
    if (ready.length === 0) return null;

    const subscriptions = (await top.listEndpoints()).filter((row) => row.enabled === 1).map(subscriptionOf);
    watching = subscriptions.length > 0;
    const itemIds = [...new Set(ready.map((e) => itemOf(e.type, parsed(e).data) ?? ''))].filter(Boolean);
    const statuses = new Map((await top.itemStatuses(itemIds)).map((row) => [row.work_item_id, row.status]));
    const changed = new Map<string, string>();
    const forgotten = new Set<string>();
    const deliveries: NewDelivery[] = [];
    for (const stored of ready) {
      const event = parsed(stored);
      const itemId = ITEM_EVENTS.has(stored.type) && typeof event.data?.id === 'string' ? event.data.id : null;
      let statusName: string | null = null;
      if (itemId !== null && stored.type === 'work.deleted') {
        statuses.delete(itemId);
        changed.delete(itemId);
        forgotten.add(itemId);
      } else if (itemId !== null && typeof event.data?.status === 'string') {
        // An item last seen before webhooks existed has no status here: its change is announced.
        if (stored.type === 'work.updated') statusName = statusEventName(statuses.get(itemId), event.data.status);
        statuses.set(itemId, event.data.status);
        changed.set(itemId, event.data.status);
        forgotten.delete(itemId);
      }
      for (const sub of subscriptions) {
        const name = deliveredName(sub, event, statusName);
        if (name === null) continue;
        const body =
          sub.row.work_item_id === null
            ? deliveryBody(sub.row.format, name, event, publicUrl)
            : await scopedBody(event, sub.row.id, statuses.get(sub.row.work_item_id));
        if (body === null) continue;
        deliveries.push({
          id: newMessageId(),
          endpoint_id: sub.row.id,
          event_id: stored.id,
          type: name,
          body,
          status: 'pending',
          attempt_count: 0,
          next_attempt_at: stored.created_at,
          created_at: stored.created_at,
          delivered_at: null,
        });
      }
    }
    const to = ready.at(-1)!.id;
    try {
      await database.transaction(async (tx) => {
        const s = statementsOn(tx);
        if (!(await s.advanceFanOut(cursor, to))) throw new CursorMoved();
        await s.insertDeliveries(deliveries);
        await s.saveItemStatuses([...changed].map(([work_item_id, status]): ItemStatus => ({ work_item_id, status })));
        await s.forgetItems([...forgotten]);
      });
    } catch (error) {
      if (error instanceof CursorMoved) return 0;
      throw error;
    }
    if (deliveries.length > 0) {
      logger.debug({ events: ready.length, deliveries: deliveries.length, cursor: to }, 'webhook deliveries written');
      written();
    }
    return deliveries.length;
  }

  return {
    async run() {
      let total = 0;
      for (;;) {
        const count = await batch();
        if (count === null) return total;
        total += count;
      }
    },
    cursor: () => top.fanOutCursor(),
    watching: () => watching,
  };
}
