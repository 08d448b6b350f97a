import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import type { Database } from '../../shared/db/database.js';
import { ACCESS } from '../../auth/contract.js';
import { ValidationError } from '../../shared/errors.js';
import type { HttpApp } from '../../shared/http/types.js';
import { withHeaders } from '../../shared/http/openapi.js';
import { UuidSchema, problemResponses } from '../../shared/http/schemas.js';
import { AgentNameSchema, WorkTypeSchema } from '../api-contract.js';
import type { EventLog, StoredEvent } from './store/port.js';
import { createEventLog } from './store/index.js';
import { EVENTS_CHANNEL } from '../store/port.js';

// Server-Sent Events from the event log, the single source: a client resuming with Last-Event-ID
// reads what it missed from the table; instances learn of each other's writes through
// LISTEN/NOTIFY (PostgreSQL) or a wake-up after commit, with a slow poll as the safety net.

const BATCH = 500;
/** How much event data one read of the log brings in at most. */
const BATCH_BYTES = 256 * 1024;
/** The safety net for a notification lost while reconnecting. */
const POLL_MS = 2_000;
const GAP_RECHECK_MS = 25;
const GAP_RECHECK_MAX_MS = 1_000;
const ANNOUNCE_EVERY_MS = 10;
const HEARTBEAT_MS = 15_000;
/**
 * The log is each client's buffer: a client whose socket stops draining is written no more until
 * it drains, then reads on from its own position; one stuck this long is closed and resumes.
 */
const STALL_MS = 60_000;
const DEFAULT_RETENTION_DAYS = 30;
const PURGE_EVERY_MS = 10 * 60 * 1000;
/** Rows per delete: each batch holds the write lock only briefly, however much is due. */
const PURGE_BATCH = 1_000;

export const STREAM_EVENTS = {
  /** The client's Last-Event-ID is beyond anything this log has held: it must reload its state. */
  reset: 'reset',
} as const;

/** What a client asked to follow; every field absent: the whole desk. */
export interface StreamFilter {
  agent?: string;
  type?: string;
  project_id?: string;
}

interface Subscriber {
  response: ServerResponse;
  lastSent: number;
  filter: StreamFilter | null;
  /** Set while the socket's buffer is full: the client is written nothing until it drains. */
  stalled: NodeJS.Timeout | null;
}

/** Where a new client's stream begins. */
export interface StreamStart {
  after: number;
  /** The client asked to resume from an id this log never reached (it was reset): reload. */
  reset: boolean;
}

export interface EventHubOptions {
  /** How long a client may leave its socket full before it is closed. */
  stallMs?: number;
  /**
   * What the NOTIFY to the other instances carries, asked when it is sent: the claim service's
   * news of what became claimable (claims.ts), so one notification serves both.
   */
  payload?: () => string;
  /**
   * The newest event another reader of the log has reached, or null when none needs the log
   * kept: the webhooks' fan-out, so an event it has not read yet outlives the retention.
   */
  keepAbove?: () => Promise<number | null>;
  /** EVENTS_RETENTION_DAYS: how long an event stays for clients that resume. */
  retentionDays?: number;
  now?: () => Date;
}

export interface EventHub {
  /** This process committed events: deliver them and tell the other instances. Calls coalesce. */
  committed(): void;
  /** Reads where a client resuming from `lastEventId` starts; may fail while the database is away. */
  locate(lastEventId: number | null): Promise<StreamStart>;
  /** Streams to `response` from `start`; the response must already carry its headers. */
  subscribe(response: ServerResponse, start: StreamStart, filter?: StreamFilter | null): void;
  /** How many clients are subscribed now. */
  clients(): number;
  /**
   * How far delivery trails the log, in events: the newest id a reader can see less the
   * position of the client furthest behind (0 with no clients). One read of the log's head.
   */
  lag(): Promise<number>;
  /**
   * Calls `listener` whenever the log may have grown: a commit here, another instance's
   * notification, the safety-net poll. For readers in this process (A2A's task streams); returns
   * the way to stop.
   */
  watch(listener: () => void): () => void;
  /** Deletes the events past the retention (in short batches); answers how many went. */
  purge(): Promise<number>;
  close(): Promise<void>;
}

export async function createEventHub(
  database: Database,
  logger: Logger,
  options: EventHubOptions = {},
): Promise<EventHub> {
  const log: EventLog = createEventLog(database);
  const stallMs = options.stallMs ?? STALL_MS;
  const subscribers = new Set<Subscriber>();
  const watchers = new Set<() => void>();
  let pumping: Promise<void> | null = null;
  let again = false;
  let closed = false;

  /**
   * Every id at or below this that is missing from the log now will never appear in it. On
   * PostgreSQL ids come from a sequence at insert but transactions commit in their own order (id 8
   * may become visible after id 9), so delivery stops at such a gap and steps over it only once
   * every transaction running when it was seen has ended (PostgreSQL's own record, no clock): the
   * missing id has then appeared or rolled back for good. A transaction that stalls before COMMIT
   * holds the stream back while it stalls, and is still delivered, in id order.
   */
  let settled = 0;
  /** A gap seen below `below`, and the transactions running just after it was seen. */
  let pendingGap: { below: number; writers: string } | null = null;
  let gapRecheck: NodeJS.Timeout | undefined;
  let gapRecheckMs = GAP_RECHECK_MS;
  let announce: NodeJS.Timeout | undefined;

  function stall(subscriber: Subscriber): void {
    if (subscriber.stalled) return;
    subscriber.stalled = setTimeout(() => {
      logger.info('event client has not read for too long; closing it (it resumes with Last-Event-ID)');
      subscriber.response.destroy();
    }, stallMs);
    subscriber.response.once('drain', () => {
      clearTimeout(subscriber.stalled ?? undefined);
      subscriber.stalled = null;
      wake();
    });
  }

  /** Writes `events` until the client's socket is full; returns whether it can take more. */
  function send(
    subscriber: Subscriber,
    events: StoredEvent[],
    frames: string[],
    data: (i: number) => EventData,
  ): boolean {
    let skipped = false;
    for (let i = 0; i < events.length; i += 1) {
      subscriber.lastSent = events[i]!.id;
      skipped = subscriber.filter !== null && !wanted(subscriber.filter, events[i]!.type, data(i));
      if (skipped) continue;
      if (!subscriber.response.write(frames[i])) {
        stall(subscriber);
        return false;
      }
    }
    // An id alone moves a filtered client's Last-Event-ID past what it skipped.
    if (skipped && !subscriber.response.write(`id: ${subscriber.lastSent}\n\n`)) {
      stall(subscriber);
      return false;
    }
    return true;
  }

  /** Delivers to every subscriber that can take it what follows its last event; true when held at a gap. */
  async function deliver(): Promise<boolean> {
    if (pendingGap && (await log.ended(pendingGap.writers))) {
      // Read after the check: a missing id whose writer committed is visible from here on.
      settled = Math.max(settled, pendingGap.below);
      pendingGap = null;
    }
    const groups = new Map<number, Subscriber[]>();
    for (const subscriber of subscribers) {
      if (subscriber.stalled) continue;
      const group = groups.get(subscriber.lastSent) ?? [];
      group.push(subscriber);
      groups.set(subscriber.lastSent, group);
    }
    let gapBelow = 0;
    for (const [after, group] of groups) {
      let cursor = after;
      let receivers = group;
      for (;;) {
        const events = await log.after(cursor, BATCH, BATCH_BYTES);
        // In bytes, as PostgreSQL counts them; SQLite counts characters, never more than bytes.
        const full =
          events.length === BATCH || events.reduce((bytes, e) => bytes + Buffer.byteLength(e.data), 0) >= BATCH_BYTES;
        const ready = contiguousPrefix(cursor, events, settled);
        if (ready.length < events.length) gapBelow = Math.max(gapBelow, events[ready.length]!.id);
        if (ready.length === 0) break;
        const frames = ready.map(frame);
        const parsed: EventData[] = [];
        const data = (i: number) => (parsed[i] ??= parseEventData(ready[i]!.data));
        // A heartbeat may have found a receiver's socket full while we read.
        receivers = receivers.filter((s) => subscribers.has(s) && !s.stalled && send(s, ready, frames, data));
        cursor = ready.at(-1)!.id;
        if (receivers.length === 0 || !full || ready.length < events.length) break;
      }
    }
    if (gapBelow > 0 && !pendingGap) {
      // Taken after the read that saw the gap: its writer, if still running, is named here.
      pendingGap = { below: gapBelow, writers: await log.writersNow() };
    }
    return gapBelow > 0;
  }

  function wake(): void {
    if (closed) return;
    for (const watcher of watchers) watcher();
    if (subscribers.size === 0) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = (async () => {
      do {
        again = false;
        try {
          const held = await deliver();
          if (!held) gapRecheckMs = GAP_RECHECK_MS;
          if (held && !gapRecheck && !closed) {
            // A commit wakes us by itself; a rollback does not, so look again, less and less often.
            gapRecheck = setTimeout(() => {
              gapRecheck = undefined;
              wake();
            }, gapRecheckMs);
            gapRecheckMs = Math.min(GAP_RECHECK_MAX_MS, gapRecheckMs * 2);
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
      database.notify(EVENTS_CHANNEL, options.payload?.() ?? '').catch((error: unknown) => {
        // The others' poll picks the events up; nothing is lost.
        logger.warn({ err: { message: (error as Error).message } }, 'event notification failed');
      });
    }, ANNOUNCE_EVERY_MS);
  }

  const unlisten = await database.listen(EVENTS_CHANNEL, () => wake());
  const poll = setInterval(wake, POLL_MS);
  const heartbeat = setInterval(() => {
    // A stalled client gets no heartbeat: its buffer is full already.
    for (const subscriber of subscribers) {
      if (!subscriber.stalled && !subscriber.response.write(': keep-alive\n\n')) stall(subscriber);
    }
  }, HEARTBEAT_MS);
  const retentionMs = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * 24 * 60 * 60 * 1000;
  const now = options.now ?? (() => new Date());
  async function purgeExpired(): Promise<number> {
    const upTo = (await options.keepAbove?.()) ?? undefined;
    const before = new Date(now().getTime() - retentionMs).toISOString();
    let removed = 0;
    for (let batch = PURGE_BATCH; batch === PURGE_BATCH && !closed; removed += batch) {
      batch = await log.purgeBefore(before, upTo, PURGE_BATCH);
    }
    return removed;
  }
  const purge = setInterval(() => {
    purgeExpired().catch((error: unknown) =>
      logger.warn(
        { err: { message: (error as Error).message } },
        'purging the event log failed; the next pass retries',
      ),
    );
  }, PURGE_EVERY_MS);
  for (const timer of [poll, heartbeat, purge]) timer.unref();

  function unsubscribe(subscriber: Subscriber): void {
    clearTimeout(subscriber.stalled ?? undefined);
    subscribers.delete(subscriber);
  }

  return {
    committed() {
      wake();
      announceToOtherInstances();
    },
    async locate(lastEventId) {
      const { latest, reached } = await log.position();
      if (lastEventId === null) return { after: latest, reset: false };
      // An id above any this log handed out comes from another log (a reset or restored
      // database): resuming from it would wait for ids that mean something else, or forever.
      if (lastEventId > reached) return { after: latest, reset: true };
      // Events after it were purged (EVENTS_RETENTION_DAYS): what the client holds is stale. A
      // rollback's unused id just below the oldest kept one may reset a client that missed nothing.
      const oldest = (await log.oldest()) || reached + 1;
      if (lastEventId < oldest - 1) return { after: latest, reset: true };
      return { after: lastEventId, reset: false };
    },
    subscribe(response, start, filter = null) {
      // The client may have left while its start was being read, or the server is closing.
      if (response.destroyed || closed) {
        response.end();
        return;
      }
      // An id with no data moves the client's Last-Event-ID without firing an event, so a page
      // that drops before its first event still resumes from here instead of reloading.
      response.write(
        start.reset
          ? `id: ${start.after}\nevent: ${STREAM_EVENTS.reset}\ndata: {"last_event_id":${start.after}}\n\n`
          : `id: ${start.after}\n\n`,
      );
      const subscriber: Subscriber = { response, lastSent: start.after, filter, stalled: null };
      subscribers.add(subscriber);
      response.on('close', () => unsubscribe(subscriber));
      wake();
    },
    clients: () => subscribers.size,
    purge: purgeExpired,

    watch(listener) {
      watchers.add(listener);
      return () => watchers.delete(listener);
    },
    async lag() {
      if (subscribers.size === 0) return 0;
      const { latest } = await log.position();
      let slowest = Number.POSITIVE_INFINITY;
      for (const subscriber of subscribers) slowest = Math.min(slowest, subscriber.lastSent);
      return slowest === Number.POSITIVE_INFINITY ? 0 : Math.max(0, latest - slowest);
    },
    async close() {
      closed = true;
      for (const timer of [poll, heartbeat, purge]) clearInterval(timer);
      clearTimeout(gapRecheck);
      clearTimeout(announce);
      for (const subscriber of subscribers) {
        // A stalled client would never take the end of the stream: cut it.
        if (subscriber.stalled) subscriber.response.destroy();
        else subscriber.response.end();
        clearTimeout(subscriber.stalled ?? undefined);
      }
      subscribers.clear();
      watchers.clear();
      await pumping;
      await unlisten();
    },
  };
}

/**
 * The events that can go out now: those that follow `cursor` without a hole, stepping over a
 * hole only where every missing id is at or below `settled` (known never to appear).
 */
export function contiguousPrefix(cursor: number, events: StoredEvent[], settled: number): StoredEvent[] {
  let expected = cursor + 1;
  let count = 0;
  for (const event of events) {
    if (event.id !== expected && event.id - 1 > settled) break;
    expected = event.id + 1;
    count += 1;
  }
  return events.slice(0, count);
}

type EventData = Record<string, unknown> | null;

function parseEventData(text: string): EventData {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Whether a filtered client gets an event. Work events match on the item's agent, type and
 * project; a deletion names only the id, so every client gets it; project events match the
 * project filter alone.
 */
function wanted(filter: StreamFilter, type: string, data: EventData): boolean {
  if (type === 'work.deleted') return true;
  if (data === null) return false;
  if (type.startsWith('project.')) {
    return (
      filter.agent === undefined &&
      filter.type === undefined &&
      (filter.project_id === undefined || data.id === filter.project_id)
    );
  }
  return (
    (filter.agent === undefined || data.assigned_agent === filter.agent) &&
    (filter.type === undefined || data.type === filter.type) &&
    (filter.project_id === undefined || data.project_id === filter.project_id)
  );
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
        operationId: 'streamEvents',
        tags: ['events'],
        summary:
          'Server-Sent Events: work.created, work.updated, work.deleted, work.commented, question.asked, question.answered, question.moot, project.created, project.updated; resume with Last-Event-ID',
        description:
          'Events come in id order, each once. A Last-Event-ID above any id this log has handed out (its database was reset), or below the oldest one it keeps (EVENTS_RETENTION_DAYS), ' +
          'is answered with a `reset` event carrying the current id: reload what you hold, then follow the stream. ' +
          'A client that leaves its connection full (reads nothing) for a minute is closed; it resumes with Last-Event-ID. ' +
          'agent, type and project_id narrow the stream to the work items that match (deletions always come through).',
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String()) }),
        querystring: Type.Object(
          {
            last_event_id: Type.Optional(Type.String({ description: 'For clients that cannot set headers' })),
            agent: Type.Optional(AgentNameSchema),
            type: Type.Optional(WorkTypeSchema),
            project_id: Type.Optional(UuidSchema),
          },
          { additionalProperties: false },
        ),
        response: {
          // Written by hand to the raw socket: declared for the document, never serialized.
          200: withHeaders(
            { description: 'The event stream', content: { 'text/event-stream': { schema: Type.String() } } },
            'Cache-Control',
          ),
          ...problemResponses(422, 503),
        },
      },
    },
    async (request, reply) => {
      const raw = request.headers['last-event-id'] ?? request.query.last_event_id;
      if (raw !== undefined && !/^\d{1,15}$/.test(raw)) {
        throw ValidationError.of('last-event-id', 'must be the id of an event this stream sent');
      }
      // Read before answering: if the database fails here, the client gets a 503 it can see,
      // not a 200 stream that never says anything.
      const start = await hub.locate(raw === undefined ? null : Number(raw));
      reply.hijack();
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      reply.raw.write('retry: 2000\n\n');
      const { agent, type, project_id } = request.query;
      const filter =
        agent !== undefined || type !== undefined || project_id !== undefined ? { agent, type, project_id } : null;
      hub.subscribe(reply.raw, start, filter);
    },
  );
  app.addHook('preClose', async () => {
    await hub.close();
  });
}
