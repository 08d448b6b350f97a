import type { Logger } from 'pino';
import { RateLimitedError } from '../shared/errors.js';
import type { Identity } from './authenticator.js';
import type { AuthStore } from './store/port.js';

// Each credential may classify CLASSIFY_RATE_LIMIT emails a minute. The count lives in the database, so
// the budget is the same whichever instance answers.

const WINDOW_MS = 60_000;

export interface Reservation {
  /** Gives the call back: it did not reach a provider. */
  release(): Promise<void>;
}

export interface ClassifyBudget {
  /** Counts one call for `identity` or throws RateLimitedError; null identity (AUTH=off) is not limited. */
  take(identity: Identity | null): Promise<Reservation>;
  /**
   * What a request asks before it may reach a provider, or undefined when nothing limits this
   * caller: the classify service then skips the read that spares a duplicate the budget, so a
   * duplicate stays one statement (the dedupe claim).
   */
  takerFor(identity: Identity | null): (() => Promise<Reservation>) | undefined;
}

const NOTHING: Reservation = { release: async () => {} };

/**
 * A call is counted before the provider is asked (a burst cannot overshoot) and handed back when nothing
 * was spent: a duplicate served from the store, or a request refused.
 */
export function createClassifyBudget(
  store: AuthStore,
  limit: number,
  logger: Logger,
  now: () => Date = () => new Date(),
): ClassifyBudget {
  let purgedWindow = '';
  const budget: ClassifyBudget = {
    takerFor(identity) {
      return identity === null ? undefined : () => budget.take(identity);
    },
    async take(identity) {
      if (identity === null) return NOTHING;
      const at = now().getTime();
      const start = at - (at % WINDOW_MS);
      const window = new Date(start).toISOString();
      if (window !== purgedWindow) {
        purgedWindow = window;
        store.purgeBudget(window).catch((error: unknown) => {
          logger.warn({ err: { message: (error as Error).message } }, 'classify budget purge failed');
        });
      }
      if (!(await store.takeBudget(identity.credential, window, limit))) {
        const seconds = Math.max(1, Math.ceil((start + WINDOW_MS - at) / 1000));
        throw new RateLimitedError(
          `This token's classify budget (${limit} a minute) is spent; retry in ${seconds} s.`,
          seconds,
        );
      }
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await store.returnBudget(identity.credential, window);
        },
      };
    },
  };
  return budget;
}
