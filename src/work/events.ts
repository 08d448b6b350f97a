import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import type { Database } from '../shared/db.js';
import { ACCESS } from '../auth/roles.js';
import { ValidationError } from '../shared/errors.js';
import type { HttpApp } from '../shared/http.js';
import { problemResponses } from '../shared/schemas.js';
import { EVENTS_CHANNEL, type StoredEvent, type WorkStore } from './store.js';

// Server-Sent Events from the event log. Every write appends its event in its own
// transaction, so the log is the single source: a client resuming with Last-Event-ID reads
// what it missed from the table, and instances learn of each other's writes through
// LISTEN/NOTIFY (PostgreSQL) or a wake-up after commit (this process), with a slow poll as
// the safety net for a notification lost while reconnecting.
//
// On PostgreSQL, event ids come from a sequence when the event is inserted, but transactions
// commit in their own order: id 8 may become visible after id 9. Writers are not serialized
// for that; instead delivery stops at a gap in the ids until the missing event appears or the
// gap is older than GAP_WAIT_MS (its transaction rolled back). Events are appended last, just
// before COMMIT, so a real gap closes within milliseconds.

const BATCH = 500;
const POLL_MS = 2_000;
const GAP_WAIT_MS = 5_000;
const GAP_RECHECK_MS = 25;
const ANNOUNCE_EVERY_MS = 10;
const HEARTBEAT_MS = 15_000;
const RETENTION_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 10 * 60 * 1000;

interface Subscriber {
  response: ServerResponse;
  lastSent: number;
}

export interface EventHub {
  /** This process committed events: deliver them and tell the other instances. Calls coalesce. */
  committed(): void;
  subscribe(response: ServerResponse, lastEventId: number | null): Promise<void>;
  close(): Promise<void>;
}

export async function createEventHub(store: WorkStore, database: Database, logger: Logger): Promise<EventHub> {
  const subscribers = new Set<Subscriber>();
  let pumping: Promise<void> | null = null;
  let again = false;
  let closed = false;

  let gapRecheck: NodeJS.Timeout | undefined;
  let announce: NodeJS.Timeout | undefined;

  /** Delivers to every subscriber what follows its last event; true when held at a gap. */
  async function deliver(): Promise<boolean> {
    const groups = new Map<number, Subscriber[]>();
    for (const subscriber of subscribers) {
      const group = groups.get(subscriber.lastSent) ?? [];
      group.push(subscriber);
      groups.set(subscriber.lastSent, group);
    }
    let heldAtGap = false;
    for (const [after, group] of groups) {
      let cursor = after;
      for (;;) {
        const events = await store.eventsAfter(cursor, BATCH);
        const ready = contiguousPrefix(cursor, events, Date.now());
        if (ready.length < events.length) heldAtGap = true;
        if (ready.length === 0) break;
        const frames = ready.map(frame).join('');
        cursor = ready.at(-1)!.id;
        for (const subscriber of group) {
          if (!subscribers.has(subscriber)) continue;
          subscriber.response.write(frames);
          subscriber.lastSent = cursor;
        }
        if (events.length < BATCH || ready.length < events.length) break;
      }
    }
    return heldAtGap;
  }

  function wake(): void {
    if (closed || subscribers.size === 0) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = (async () => {
      do {
        again = false;
        try {
          if ((await deliver()) && !gapRecheck && !closed) {
            gapRecheck = setTimeout(() => {
              gapRecheck = undefined;
              wake();
            }, GAP_RECHECK_MS);
          }
        } catch (error) {
          // The database may be briefly away; the next wake or poll catches up.
          logger.warn({ err: { message: (error as Error).message } }, 'event delivery failed');
        }
      } while (again && !closed);
      pumping = null;
    })();
  }

  /** One NOTIFY per short window, however many commits it covers. */
  function announceToOtherInstances(): void {
    if (closed || announce) return;
    announce = setTimeout(() => {
      announce = undefined;
      database.notify(EVENTS_CHANNEL).catch((error: unknown) => {
        // The others' poll picks the events up; nothing is lost.
        logger.warn({ err: { message: (error as Error).message } }, 'event notification failed');
      });
    }, ANNOUNCE_EVERY_MS);
  }

  const unlisten = await database.listen(EVENTS_CHANNEL, wake);
  const poll = setInterval(wake, POLL_MS);
  const heartbeat = setInterval(() => {
    for (const subscriber of subscribers) subscriber.response.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  const purge = setInterval(() => {
    store.purgeEventsBefore(new Date(Date.now() - RETENTION_MS).toISOString()).catch(() => undefined);
  }, PURGE_EVERY_MS);
  for (const timer of [poll, heartbeat, purge]) timer.unref();

  return {
    committed() {
      wake();
      announceToOtherInstances();
    },
    async subscribe(response, lastEventId) {
      const start = lastEventId ?? (await store.latestEventId());
      // An id with no data moves the client's Last-Event-ID without firing an event, so a page
      // that drops before its first event still resumes from here instead of reloading.
      response.write(`id: ${start}\n\n`);
      const subscriber: Subscriber = { response, lastSent: start };
      subscribers.add(subscriber);
      response.on('close', () => subscribers.delete(subscriber));
      wake();
    },
    async close() {
      closed = true;
      for (const timer of [poll, heartbeat, purge]) clearInterval(timer);
      clearTimeout(gapRecheck);
      clearTimeout(announce);
      for (const subscriber of subscribers) subscriber.response.end();
      subscribers.clear();
      await pumping;
      await unlisten();
    },
  };
}

/**
 * The events that can go out now: those that follow `cursor` without a hole, plus anything
 * after a hole that has stayed open longer than a transaction can take to commit.
 */
export function contiguousPrefix(cursor: number, events: StoredEvent[], now: number): StoredEvent[] {
  let expected = cursor + 1;
  let count = 0;
  for (const event of events) {
    if (event.id !== expected && now - Date.parse(event.created_at) < GAP_WAIT_MS) break;
    expected = event.id + 1;
    count += 1;
  }
  return events.slice(0, count);
}

function frame(event: StoredEvent): string {
  // The data is one line of JSON, so it needs no splitting across data: lines.
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${event.data}\n\n`;
}

export function registerEventRoutes(app: HttpApp, hub: EventHub): void {
  app.get(
    '/events',
    {
      // A stream outlives the check at its start: it ends when its credential is revoked.
      config: { access: ACCESS.read, stream: true },
      schema: {
        tags: ['events'],
        summary:
          'Server-Sent Events: work.created, work.updated, work.deleted, project.created, project.updated; resume with Last-Event-ID',
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String()) }),
        querystring: Type.Object(
          { last_event_id: Type.Optional(Type.String({ description: 'For clients that cannot set headers' })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.String({ description: 'text/event-stream' }), ...problemResponses(422) },
      },
    },
    async (request, reply) => {
      const raw = request.headers['last-event-id'] ?? request.query.last_event_id;
      if (raw !== undefined && !/^\d{1,15}$/.test(raw)) {
        throw ValidationError.of('last-event-id', 'must be the id of an event this stream sent');
      }
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      reply.raw.write('retry: 2000\n\n');
      await hub.subscribe(reply.raw, raw === undefined ? null : Number(raw));
    },
  );
  app.addHook('preClose', async () => {
    await hub.close();
  });
}
