import type { Logger } from 'pino';
import type { StatsStore } from './store/port.js';

// Every instance compacts: reads add whatever is not yet compacted, so how often this runs only
// bounds how many delta rows a read sums (a few seconds of writes), never what it returns.

export const COMPACT_EVERY_MS = 5_000;

export function startStatsCompactor({
  store,
  logger,
  everyMs = COMPACT_EVERY_MS,
}: {
  store: StatsStore;
  logger: Logger;
  everyMs?: number;
}) {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = store
      .compact()
      .then(() => undefined)
      .catch((error: unknown) => {
        // The deltas stay where they are: the next run folds them in.
        logger.warn({ err: { message: (error as Error).message } }, 'stats compaction failed');
      })
      .finally(() => {
        running = null;
      });
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
