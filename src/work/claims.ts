import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../shared/db.js';
import { WORK_EVENTS } from './item-changes.js';
import { type Actor, toWorkItem } from './item-view.js';
import { NO_OBSERVER, type WorkObserver } from './observer.js';
import { type ClaimRequest, LEASE_LIMITS, type WorkItem } from './schemas.js';
import { secondsAfter } from './plans.js';
import { EVENTS_CHANNEL, type WorkStore } from './store.js';

// Claims, and the long poll behind `wait_s`. A claimer that finds nothing waits here, in
// memory, until something that could make an item claimable happens: a commit in this process
// (the store's signal), a NOTIFY from another instance, or the `run_after` of a delayed item
// coming due (one timer, set from the database's own answer). Nothing polls the database.

/** The longest delay setTimeout honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface ClaimDeps {
  store: WorkStore;
  database: Database;
  logger: Logger;
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

export function createClaimService({ store, database, logger, now = () => new Date(), observer = NO_OBSERVER }: ClaimDeps) {
  const waiters = new Set<Waiter>();
  let draining = false;
  let again = false;
  let dueTimer: NodeJS.Timeout | undefined;
  let dueAt = Number.POSITIVE_INFINITY;
  let unlisten: Promise<() => Promise<void>> | null = null;
  let closed = false;

  async function claimOnce(request: ClaimRequest, actor: Actor): Promise<WorkItem | null> {
    const at = now().toISOString();
    const leaseS = request.lease_s ?? LEASE_LIMITS.default;
    const claimed = await store.claim({
      agent: request.agent,
      types: request.types ?? null,
      project_id: request.project_id ?? null,
      now: at,
      status: request.start === false ? 'dispatched' : 'in_progress',
      lease_s: leaseS,
      lease_expires_at: secondsAfter(at, leaseS),
      dispatch_id: randomUUID(),
      event_type: WORK_EVENTS.updated,
      actor,
    });
    if (!claimed) return null;
    observer.claimed(claimed.row.type);
    return toWorkItem(claimed.row, claimed.dispatches);
  }

  /** Claims at once, or waits up to `wait_s`; null when nothing could be claimed. */
  async function claim(request: ClaimRequest, actor: Actor, signal?: AbortSignal): Promise<WorkItem | null> {
    const first = await claimOnce(request, actor);
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

  /** Something changed: let the waiting claimers try again, one after another, oldest first. */
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
          for (const waiter of [...waiters]) {
            if (waiter.gone || !waiters.has(waiter)) continue;
            try {
              const item = await claimOnce(waiter.request, waiter.actor);
              if (item) waiter.settle(item);
            } catch (error) {
              waiter.settle(error as Error);
            }
          }
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
