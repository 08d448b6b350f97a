import type { Logger } from 'pino';
import { PLAN_HOLD } from '../plans/settle.js';
import type { WorkService } from '../items/service.js';
import type { WorkStore } from '../store/port.js';

// Every instance sweeps: whichever reaches an expired item first changes it, and the others'
// writes, guarded by the version they read, find it changed and do nothing, so each lease
// expires exactly once. The sweep reads only items holding a lease (a partial index).

export const SWEEP_EVERY_MS = 500;
const SWEEP_BATCH = 200;
const PURGE_EVERY_MS = 10 * 60 * 1000;
/** Plans are settled at their step's completion; the sweep only catches the few missed. */
const SETTLE_EVERY_SWEEPS = 10;

export interface LeaseSweeperDeps {
  store: WorkStore;
  work: Pick<WorkService, 'expireLease' | 'purgeIdempotencyKeys' | 'settlePlan'>;
  logger: Logger;
  now?: () => Date;
  everyMs?: number;
}

export function startLeaseSweeper({
  store,
  work,
  logger,
  now = () => new Date(),
  everyMs = SWEEP_EVERY_MS,
}: LeaseSweeperDeps) {
  let running: Promise<void> | null = null;
  let lastPurge = 0;
  let sweeps = 0;

  async function sweep(): Promise<number> {
    let expired = 0;
    // Bounded, so items that keep failing to expire cannot hold one sweep forever.
    for (let batch = 0; batch < 10; batch += 1) {
      const rows = await store.expiredLeases(now().toISOString(), SWEEP_BATCH);
      for (const row of rows) {
        await work.expireLease(row.id).catch((error: unknown) => {
          // Deleted meanwhile, or the database blinked: the next sweep sees it again if it still matters.
          logger.debug({ err: { message: (error as Error).message }, id: row.id }, 'lease expiry skipped');
        });
        expired += 1;
      }
      if (rows.length < SWEEP_BATCH) break;
    }
    // The first sweep (at start-up) and every SETTLE_EVERY_SWEEPS-th: a plan whose last step's
    // completion did not settle it (a crash between the two commits, a review's approval).
    if (sweeps++ % SETTLE_EVERY_SWEEPS === 0) {
      for (const id of await store.plansToSettle(PLAN_HOLD, SWEEP_BATCH)) {
        await work
          .settlePlan(id)
          .catch((error: unknown) =>
            logger.debug({ err: { message: (error as Error).message }, id }, 'plan settlement skipped'),
          );
      }
    }
    if (now().getTime() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = now().getTime();
      await work.purgeIdempotencyKeys();
    }
    return expired;
  }

  const timer = setInterval(() => {
    if (running) return;
    running = sweep()
      .then(() => undefined)
      .catch((error: unknown) => logger.warn({ err: { message: (error as Error).message } }, 'lease sweep failed'))
      .finally(() => {
        running = null;
      });
  }, everyMs);
  timer.unref();

  return {
    sweep,
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
