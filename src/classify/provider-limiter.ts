// How many provider calls run at once, per caller and in all, so a mailbox that floods the classifier does not
// open a socket to the provider per email. The per-minute budget (auth/classify-budget.ts) caps how many;
// this caps how many at once.

import { RateLimitedError } from '../shared/errors.js';
import { takeTurn } from '../shared/process/turns.js';

export interface LimiterSettings {
  /** Provider calls one caller may have in flight. */
  perCaller: number;
  /** Calls of one caller that may wait for a slot; one more is refused. */
  queue: number;
  /** Provider calls in flight in this process, all callers together. */
  total: number;
}

export interface ProviderSlot {
  /** Waits for a slot (in line, FIFO), runs `work`, then frees the slot. Once only. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Gives the place back when it was not used; a no-op once `run` was called. */
  release(): void;
}

export interface ProviderLimiter {
  /** Takes a place in the caller's line, or throws RateLimitedError when it is full. */
  reserve(caller: string): ProviderSlot;
  /** What is in flight and waiting now (for tests and logs). */
  snapshot(): { active: number; waiting: number; callers: number };
}

interface Line {
  active: number;
  /** Places reserved but not yet run or released. */
  reserved: number;
  waiting: Array<() => void>;
}

/** Before any call has finished, a provider answer is assumed to take this long. */
const INITIAL_CALL_MS = 1_000;
/** Weight of the latest call in the running average of call durations. */
const AVERAGE_WEIGHT = 0.2;
const RETRY_AFTER_MAX_S = 60;

/**
 * Each caller (the route's id: the token's credential, else the client address) has `perCaller` calls in
 * flight and `queue` waiting; past that it is refused (RateLimitedError, a 429 with Retry-After), not piled up.
 * `total` bounds the sockets however many callers there are; callers waiting for it are served in turn, one
 * call each, so one busy caller cannot starve the others. A place is reserved before the dedupe decision (a
 * full line is refused before any record is claimed, so a retry is judged afresh) and given back unused when
 * the email turns out to be a duplicate.
 */
export function createProviderLimiter(settings: LimiterSettings): ProviderLimiter {
  const lines = new Map<string, Line>();
  // Callers with someone waiting and a free per-caller slot, in the order they are served.
  const ready = new Set<string>();
  let active = 0;
  let waiting = 0;
  let averageCallMs = INITIAL_CALL_MS;

  const forget = (caller: string, line: Line) => {
    if (line.active === 0 && line.reserved === 0 && line.waiting.length === 0) lines.delete(caller);
  };

  const pump = () => {
    while (active < settings.total && ready.size > 0) {
      const caller = ready.values().next().value as string;
      ready.delete(caller);
      const line = lines.get(caller);
      const start = line?.waiting.shift();
      if (!line || !start) continue;
      waiting -= 1;
      start();
      // To the back: the next free slot goes to the next caller.
      if (line.waiting.length > 0 && line.active < settings.perCaller) ready.add(caller);
    }
  };

  const begin = (line: Line) => {
    line.active += 1;
    active += 1;
  };

  const finish = (caller: string, line: Line, startedAt: number) => {
    averageCallMs += AVERAGE_WEIGHT * (performance.now() - startedAt - averageCallMs);
    line.active -= 1;
    active -= 1;
    if (line.waiting.length > 0) ready.add(caller);
    forget(caller, line);
    pump();
  };

  return {
    reserve(caller) {
      let line = lines.get(caller);
      if (!line) {
        line = { active: 0, reserved: 0, waiting: [] };
        lines.set(caller, line);
      }
      if (line.active + line.reserved + line.waiting.length >= settings.perCaller + settings.queue) {
        // About one provider call: by then one of this caller's slots has most likely freed.
        const retryAfter = Math.min(RETRY_AFTER_MAX_S, Math.max(1, Math.ceil(averageCallMs / 1_000)));
        throw new RateLimitedError(
          `Too many classifications in progress for this caller (${settings.perCaller} at the provider, ${settings.queue} waiting); retry after ${retryAfter} s`,
          retryAfter,
        );
      }
      line.reserved += 1;
      const owned = line;
      let state: 'reserved' | 'used' = 'reserved';
      return {
        release() {
          if (state !== 'reserved') return;
          state = 'used';
          owned.reserved -= 1;
          forget(caller, owned);
        },
        async run(work) {
          if (state !== 'reserved') throw new Error('a provider slot runs once');
          state = 'used';
          owned.reserved -= 1;
          if (owned.active < settings.perCaller && active < settings.total) {
            begin(owned);
          } else {
            await new Promise<void>((resolve) => {
              owned.waiting.push(() => {
                begin(owned);
                resolve();
              });
              waiting += 1;
              if (owned.active < settings.perCaller) ready.add(caller);
            });
          }
          const startedAt = performance.now();
          try {
            // Building an SDK request takes noticeable CPU: hundreds released at once (a group commit
            // resolving, a line moving) must not start in one go.
            await takeTurn();
            return await work();
          } finally {
            finish(caller, owned, startedAt);
          }
        },
      };
    },

    snapshot: () => ({ active, waiting, callers: lines.size }),
  };
}
