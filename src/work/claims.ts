import type { Logger } from 'pino';
import { createCoalescer } from '../shared/coalesce.js';
import type { Database } from '../shared/db.js';
import { claimItems } from './claim-writes.js';
import type { RecentItems } from './item-changes.js';
import { type Actor, toWorkItem } from './item-view.js';
import { NO_OBSERVER, type WorkObserver } from './observer.js';
import { type ClaimRequest, LEASE_LIMITS, type WorkItem } from './schemas.js';
import { EVENTS_CHANNEL, type WorkStore } from './store/port.js';

// Claims, and the long poll behind `wait_s`. A claimer that finds nothing waits here, in
// memory, until something that could make an item claimable happens: a commit in this process
// (the store's signal), a NOTIFY from another instance, or the `run_after` of a delayed item
// coming due (one timer, set from the database's own answer). Nothing polls the database.

/** Bounds one claim statement: the claimers beyond it wait for the next. */
const MAX_CLAIM_BATCH = 32;

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

interface Waiter {
  request: ClaimRequest;
  actor: Actor;
  settle(result: WorkItem | null | Error): void;
  /** The client went away: never claim for it again. */
  gone: boolean;
}

export type ClaimService = ReturnType<typeof createClaimService>;

export function createClaimService({ store, database, logger, recent, now = () => new Date(), observer = NO_OBSERVER }: ClaimDeps) {
  const waiters = new Set<Waiter>();
  let draining = false;
  let again = false;
  let dueTimer: NodeJS.Timeout | undefined;
  let dueAt = Number.POSITIVE_INFINITY;
  let unlisten: Promise<() => Promise<void>> | null = null;
  let closed = false;

  /** One claim; the claims that arrive together run as one batch (one statement on PostgreSQL). */
  const claimOnce = createCoalescer<{ request: ClaimRequest; actor: Actor }, WorkItem | null>({
    // Only claims with the same filters can share the one read of the queue.
    keyOf: ({ request }) => JSON.stringify([request.types ? [...request.types].sort() : null, request.project_id ?? null]),
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
      );
      return claimed.map((item) => {
        if (!item) return null;
        observer.claimed(item.row.type);
        recent?.remember(item);
        return toWorkItem(item.row, item.dispatches);
      });
    },
  });

  /** Claims at once, or waits up to `wait_s`; null when nothing could be claimed. */
  async function claim(request: ClaimRequest, actor: Actor, signal?: AbortSignal): Promise<WorkItem | null> {
    const first = await claimOnce({ request, actor });
    if (first || !request.wait_s || closed || signal?.aborted) return first;
    startListening();
    return new Promise<WorkItem | null>((resolve, reject) => {
      const waiter: Waiter = {
        request,
        actor,
        gone: false,
        settle(result) {
          if (!waiters.delete(waiter)) return;
          clearTimeout(deadline);
          signal?.removeEventListener('abort', leave);
          if (result instanceof Error) reject(result);
          else resolve(result);
        },
      };
      const leave = () => {
        waiter.gone = true;
        waiter.settle(null);
      };
      const deadline = setTimeout(() => waiter.settle(null), (request.wait_s ?? 0) * 1000);
      signal?.addEventListener('abort', leave, { once: true });
      waiters.add(waiter);
      // Something may have become claimable between the first try and now.
      wake();
    });
  }

  /** Something changed: let the waiting claimers try again, oldest first. */
  function wake(): void {
    if (waiters.size === 0 || closed) return;
    if (draining) {
      again = true;
      return;
    }
    draining = true;
    void (async () => {
      try {
        do {
          again = false;
          // All at once, oldest first: the coalescer runs them as one batch per filter, in order.
          await Promise.all(
            [...waiters].map(async (waiter) => {
              if (waiter.gone || !waiters.has(waiter)) return;
              try {
                const item = await claimOnce({ request: waiter.request, actor: waiter.actor });
                if (item) waiter.settle(item);
              } catch (error) {
                waiter.settle(error as Error);
              }
            }),
          );
          if (waiters.size > 0) await scheduleDueItems();
        } while (again && !closed);
      } finally {
        draining = false;
      }
    })();
  }

  /** Wakes the waiters when the next delayed item comes due, if one does. */
  async function scheduleDueItems(): Promise<void> {
    const next = await store.nextRunAfter({ types: null, project_id: null, now: now().toISOString() }).catch(() => null);
    if (next === null) return;
    const at = Date.parse(next);
    if (at >= dueAt) return;
    clearTimeout(dueTimer);
    dueAt = at;
    // setTimeout takes at most 2^31-1 ms and fires after 1 ms for anything longer: an item due
    // months away would wake the waiters over and over. No wait lasts that long anyway.
    const delay = Math.min(Math.max(0, at - now().getTime()) + 5, MAX_TIMER_MS);
    dueTimer = setTimeout(() => {
      dueAt = Number.POSITIVE_INFINITY;
      wake();
    }, delay);
    dueTimer.unref();
  }

  function startListening(): void {
    unlisten ??= database.listen(EVENTS_CHANNEL, wake).catch((error: unknown) => {
      logger.warn({ err: { message: (error as Error).message } }, 'claim wake-ups from other instances unavailable');
      unlisten = null;
      return async () => {};
    });
  }

  async function close(): Promise<void> {
    closed = true;
    clearTimeout(dueTimer);
    for (const waiter of [...waiters]) waiter.settle(null);
    await (await unlisten)?.();
  }

  return { claim, wake, close, waiting: () => waiters.size };
}
