import { randomId } from '../../shared/db/ids.js';
import type { Logger } from 'pino';
import { createCoalescer } from '../../shared/db/coalesce.js';
import type { Database } from '../../shared/db/database.js';
import {
  type Claimable,
  type ClaimableNews,
  canTake,
  createNewsCollector,
  decodeNews,
  encodeNews,
} from './claimable.js';
import { planClaim } from '../items/change-rules.js';
import { claimItems } from './claim-writes.js';
import { type RecentItems, writeOf } from '../items/changes.js';
import { type Actor, toWorkItem } from '../items/view.js';
import { NO_OBSERVER, type WorkObserver } from '../metrics/observer.js';
import { type ClaimRequest, LEASE_LIMITS, type WorkItem } from '../api-contract.js';
import { EVENTS_CHANNEL, type WorkStore } from '../store/port.js';

// Claims, and the long poll behind `wait_s`: a claimer that finds nothing waits here, in memory,
// until an item it can take becomes claimable; nothing polls the database.
// Who is woken, and when: docs/design-decisions.md, "Waking waiting claims".

/** Bounds one claim statement: the claimers beyond it wait for the next. */
const MAX_CLAIM_BATCH = 32;

/**
 * Long polls of 10 s or more end at a moment spread over their last tenth: a fleet that started
 * together (a deploy, a restart) would otherwise come back all at once every `wait_s`, a burst of
 * claim reads that every item submitted meanwhile waits behind.
 */
const SPREAD_FROM_S = 10;
const SPREAD = 0.1;

export function waitMs(wait_s: number, random: () => number = Math.random): number {
  const ms = wait_s * 1000;
  return wait_s >= SPREAD_FROM_S ? Math.round(ms - random() * ms * SPREAD) : ms;
}

/** The longest delay setTimeout honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ClaimDeps {
  store: WorkStore;
  database: Database;
  logger: Logger;
  /** Claimed items are remembered here: the claimer's next change starts from them. */
  recent?: RecentItems;
  now?: () => Date;
  /** Told of each item a claim hands out (the metrics). */
  observer?: WorkObserver;
}

/** A wake-up for anything: every waiter tries once. */
const ANYTHING: Claimable = Object.freeze({ type: '*', project_id: null, agent: null, count: 1 });

interface Waiter {
  request: ClaimRequest;
  actor: Actor;
  /** Answers the claimer; false when it had already been answered. */
  settle(result: WorkItem | null | Error): boolean;
  /** The client went away: never claim for it again. */
  gone: boolean;
  /** A claim runs for it now. */
  trying: boolean;
  /** News it could take arrived while it was trying and no idle waiter took it. */
  missed: Claimable | null;
  /** Its wait ran out while a claim ran for it: that claim's answer is the answer. */
  expired: boolean;
  /** Which delivery started its running claim (a claim started by this one read after it). */
  round: number;
  /** Its first try found nothing: it is waiting (what the gauge counts). */
  waited: boolean;
}

type KnownItem = NonNullable<Claimable['known']>[number];

interface Claimed {
  item: WorkItem;
  /** What kind of claimable it was, to tell whether a wake-up was used for what it named. */
  kind: Claimable;
}

export type ClaimService = ReturnType<typeof createClaimService>;

export function createClaimService({
  store,
  database,
  logger,
  recent,
  now = () => new Date(),
  observer = NO_OBSERVER,
}: ClaimDeps) {
  /** In arrival order: a Set iterates in insertion order, so the oldest waiter comes first. */
  const waiters = new Set<Waiter>();
  const instance = randomId();
  /** This process's news not yet told to the other instances (PostgreSQL only). */
  const outgoing = database.dialect === 'postgres' ? createNewsCollector() : null;
  let reads = 0;
  let round = 0;
  let dueTimer: NodeJS.Timeout | undefined;
  let dueAt = Number.POSITIVE_INFINITY;
  /** Items with a `run_after` up to here have been told of (at their commit, or by the timer). */
  let lookedAt: number | null = null;
  let listening = false;
  let unlisten: Promise<() => Promise<void>> | null = null;
  let closed = false;

  /** One claim; the claims that arrive together run as one batch (one statement on PostgreSQL). */
  const claimOnce = createCoalescer<{ request: ClaimRequest; actor: Actor }, Claimed | null>({
    // Only claims with the same filters can share the one read of the queue.
    keyOf: ({ request }) =>
      JSON.stringify([request.types ? [...request.types].sort() : null, request.project_id ?? null]),
    // An agent twice in one batch could be handed its own dispatched item twice.
    conflictOf: ({ request }) => request.agent,
    maxBatch: MAX_CLAIM_BATCH,
    async run(claims) {
      const at = now().toISOString();
      const { request: first } = claims[0]!;
      const claimed = await claimItems(
        store,
        { types: first.types ?? null, project_id: first.project_id ?? null, now: at },
        claims.map(({ request, actor }) => ({
          agent: request.agent,
          start: request.start !== false,
          lease_s: request.lease_s ?? LEASE_LIMITS.default,
          actor,
        })),
        () => (reads += 1),
        () => now().toISOString(),
      );
      return claimed.map((item, i) => {
        if (!item) return null;
        observer.claimed(item.row.type);
        recent?.remember(item);
        const agent = item.own ? claims[i]!.request.agent : null;
        return {
          item: toWorkItem(item.row, item.dispatches),
          kind: { type: item.row.type, project_id: item.row.project_id, agent, count: 1 },
        };
      });
    },
  });

  /** The claim of an item this process just wrote, by its version; a read of the queue if it is gone. */
  async function claimKnown(waiter: Waiter, current: KnownItem): Promise<Claimed | null> {
    const { request, actor } = waiter;
    const stamp = now().toISOString();
    // Never dispatched "before" the commit that made it claimable.
    const at = stamp > current.row.updated_at ? stamp : current.row.updated_at;
    const claimer = {
      agent: request.agent,
      start: request.start !== false,
      lease_s: request.lease_s ?? LEASE_LIMITS.default,
    };
    const { change, after } = writeOf(current, planClaim(current.row, claimer, at), actor, at);
    if (!(await store.applyChange(change))) return claimOnce({ request, actor });
    observer.claimed(after.row.type);
    recent?.remember(after);
    const agent = current.row.status === 'dispatched' ? request.agent : null;
    return {
      item: toWorkItem(after.row, after.dispatches),
      kind: { type: after.row.type, project_id: after.row.project_id, agent, count: 1 },
    };
  }

  /** Claims at once, or waits up to `wait_s`; null when nothing could be claimed. */
  async function claim(request: ClaimRequest, actor: Actor, signal?: AbortSignal): Promise<WorkItem | null> {
    if (!request.wait_s || closed || signal?.aborted) return (await claimOnce({ request, actor }))?.item ?? null;
    startListening();
    return new Promise<WorkItem | null>((resolve, reject) => {
      const waiter: Waiter = {
        request,
        actor,
        gone: false,
        trying: false,
        missed: null,
        expired: false,
        round,
        waited: false,
        settle(result) {
          if (!waiters.delete(waiter)) return false;
          clearTimeout(deadline);
          signal?.removeEventListener('abort', leave);
          if (result instanceof Error) reject(result);
          else resolve(result);
          return true;
        },
      };
      const leave = () => {
        waiter.gone = true;
        waiter.settle(null);
      };
      const deadline = setTimeout(() => {
        if (waiter.trying) waiter.expired = true;
        else waiter.settle(null);
      }, waitMs(request.wait_s!));
      signal?.addEventListener('abort', leave, { once: true });
      // In line from the start: news that comes while its first try runs marks it (`missed`).
      waiters.add(waiter);
      attempt(waiter, null);
    });
  }

  /** One try for `waiter`, woken for `reason` (null: its first try, or a retry), with the item if known. */
  function attempt(waiter: Waiter, reason: Claimable | null, known: KnownItem | null = null): void {
    waiter.trying = true;
    waiter.missed = null;
    waiter.round = round;
    (known ? claimKnown(waiter, known) : claimOnce({ request: waiter.request, actor: waiter.actor })).then(
      (claimed) => {
        waiter.trying = false;
        if (claimed) {
          // An agent that left meanwhile holds the item until its lease runs out, as before.
          waiter.settle(claimed.item);
          if (reason && reason !== ANYTHING && !sameKind(claimed.kind, reason)) deliver([reason]);
          return;
        }
        if (waiter.gone || closed) return;
        waiter.waited = true;
        if (waiter.expired) waiter.settle(null);
        else if (waiter.missed) attempt(waiter, waiter.missed);
      },
      (error: unknown) => {
        waiter.trying = false;
        waiter.settle(error as Error);
      },
    );
  }

  /** Wakes, per claimable, at most `count` idle waiters that can take it, oldest first. */
  function deliver(ready: readonly Claimable[]): void {
    if (closed) return;
    round += 1;
    for (const claimable of ready) {
      let left = claimable.count;
      const { known, ...kind } = claimable;
      // In queue order, as a read would hand them out: the most urgent to the oldest waiter.
      const rows = known ? [...known].sort(inQueueOrder) : [];
      const one = { ...kind, count: 1 };
      for (const waiter of waiters) {
        if (left === 0) break;
        if (waiter.trying || waiter.gone || waiter.expired || !canTake(waiter.request, claimable)) continue;
        left -= 1;
        attempt(waiter, one, rows.shift() ?? null);
      }
      // No idle waiter for the rest: those whose claim runs now read again if it finds nothing.
      for (const waiter of waiters) {
        if (left === 0) break;
        if (!waiter.trying || waiter.missed || waiter.round === round || !canTake(waiter.request, claimable)) continue;
        left -= 1;
        waiter.missed = one;
      }
    }
  }

  /** Every waiter tries once: the news could not say what became claimable. */
  function wakeAll(): void {
    if (closed) return;
    for (const waiter of waiters) {
      if (waiter.gone || waiter.expired) continue;
      if (waiter.trying) waiter.missed = ANYTHING;
      else attempt(waiter, ANYTHING);
    }
  }

  /**
   * These became claimable (and, with `due_at`, an item is queued for later): wakes the waiters
   * that can take them and tells the other instances. The store's commit signal calls it; a
   * feature that makes items claimable outside the store's writes calls it after its commit.
   */
  function publishClaimable(news: ClaimableNews): void {
    if (news.ready.length === 0 && news.due_at === null && !news.all) return;
    if (news.all) wakeAll();
    else deliver(news.ready);
    scheduleWakeUp(news.due_at);
    outgoing?.add(news);
  }

  /** The payload of the events NOTIFY: this process's news since the last one ('' when none). */
  function announcement(): string {
    if (!outgoing || outgoing.empty()) return '';
    return encodeNews(instance, outgoing.take());
  }

  /** Another instance's news, from the events NOTIFY payload; null when the listener (re)connects. */
  function onEventsNotify(payload: string | null): void {
    if (payload === null) {
      // The listener (re)connected: notifications may have been lost meanwhile.
      wakeAll();
      void lookForDue();
      return;
    }
    if (payload === '') return;
    const { from, all, news } = decodeNews(payload);
    if (from === instance) return;
    if (all) wakeAll();
    else deliver(news.ready);
    scheduleWakeUp(news.due_at);
  }

  /** An item is queued until `at`: the timer fires then, unless it fires sooner already. */
  function scheduleWakeUp(at: string | null): void {
    if (at === null || closed) return;
    const due = Date.parse(at);
    // Committed after the timer looked past its run_after: look at that stretch again.
    if (lookedAt !== null && due <= lookedAt) lookedAt = due - 1;
    if (due < dueAt) arm(due);
  }

  function arm(at: number): void {
    clearTimeout(dueTimer);
    dueAt = at;
    // setTimeout takes at most 2^31-1 ms and fires after 1 ms for anything longer: an item due
    // months away would fire it over and over. No wait lasts that long anyway.
    const delay = Math.min(Math.max(0, at - now().getTime()) + 5, MAX_TIMER_MS);
    dueTimer = setTimeout(() => void comeDue(), delay);
    dueTimer.unref();
  }

  /** The timer fired: what came due since the last look, counted by the database, is news. */
  async function comeDue(): Promise<void> {
    dueAt = Number.POSITIVE_INFINITY;
    const upTo = now().getTime();
    const from = lookedAt ?? upTo;
    lookedAt = upTo;
    const due = await store.cameDue(new Date(from).toISOString(), new Date(upTo).toISOString()).catch(() => null);
    if (due === null) wakeAll();
    else deliver(due.map((kind) => ({ ...kind, agent: null })));
    await lookForDue();
  }

  /** Sets the timer from the database's own answer: the next `run_after` ahead. */
  async function lookForDue(): Promise<void> {
    const at = now();
    const next = await store.nextRunAfter({ types: null, project_id: null, now: at.toISOString() }).catch(() => null);
    lookedAt ??= at.getTime();
    if (next !== null && !closed) scheduleWakeUp(next);
  }

  function startListening(): void {
    if (listening) return;
    listening = true;
    void lookForDue();
    unlisten = database.listen(EVENTS_CHANNEL, onEventsNotify).catch((error: unknown) => {
      logger.warn({ err: { message: (error as Error).message } }, 'claim wake-ups from other instances unavailable');
      return async () => {};
    });
  }

  async function close(): Promise<void> {
    closed = true;
    clearTimeout(dueTimer);
    for (const waiter of [...waiters]) waiter.settle(null);
    await (
      await unlisten
    )?.();
  }

  return {
    claim,
    publishClaimable,
    announcement,
    close,
    /** Long polls whose first try found nothing and that wait now. */
    waiting: () => {
      let count = 0;
      for (const waiter of waiters) if (waiter.waited) count += 1;
      return count;
    },
    /** Reads of the queue by claims so far (one statement each on PostgreSQL): the metrics. */
    reads: () => reads,
  };
}

function inQueueOrder(a: KnownItem, b: KnownItem): number {
  return (
    a.row.priority - b.row.priority ||
    a.row.created_at.localeCompare(b.row.created_at) ||
    a.row.id.localeCompare(b.row.id)
  );
}

function sameKind(a: Claimable, b: Claimable): boolean {
  return a.type === b.type && a.project_id === b.project_id && a.agent === b.agent;
}
