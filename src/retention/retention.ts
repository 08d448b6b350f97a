import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../shared/observability/metrics.js';
import { archiveFiles } from './archive-files.js';
import { createArchiver, type PassResult } from './archiver.js';
import type { RetentionStore } from './store/port.js';

// RETENTION_DAYS in a running service: a pass every few minutes (one instance at a time, by the
// ledger's lease), its counters in /metrics, and what /health tells of it.

export const RETENTION_EVERY_MS = 5 * 60_000;

export interface RetentionDeps {
  store: RetentionStore;
  /** RETENTION_DAYS and ARCHIVE_DIR; days null: nothing is removed, only the oldest final item shown. */
  config: { days: number | null; archiveDir: string | null };
  now: () => Date;
  logger: Logger;
  metrics: Registry;
  everyMs?: number;
}

/** What GET /health says of retention (only when RETENTION_DAYS is set). */
export interface RetentionHealth {
  oldest_final_at: string | null;
  items_removed: number;
  archive_bytes: number;
}

export function startRetention({ store, config, now, logger, metrics, everyMs = RETENTION_EVERY_MS }: RetentionDeps) {
  const registers = [metrics];
  const removedTotal = new Counter({
    name: `${METRIC_PREFIX}retention_items_removed_total`,
    help: 'Final items archived and removed by RETENTION_DAYS, by this instance',
    registers,
  });
  const bytesTotal = new Counter({
    name: `${METRIC_PREFIX}archive_bytes_total`,
    help: 'Bytes appended to the archive files under ARCHIVE_DIR, by this instance',
    registers,
  });
  new Gauge({
    name: `${METRIC_PREFIX}oldest_final_item_age_seconds`,
    help: 'Seconds since the final item changed longest ago last changed (0: none)',
    registers,
    async collect() {
      const oldest = await store.oldestFinal().catch(() => null);
      this.set(oldest === null ? 0 : Math.max(0, (now().getTime() - Date.parse(oldest)) / 1000));
    },
  });
  let removed = 0;
  let bytes = 0;
  const { days, archiveDir } = config;
  const archiver =
    days === null || archiveDir === null
      ? null
      : createArchiver({
          store,
          target: { files: archiveFiles(archiveDir) },
          now,
          logger,
          onBatch: (batchRemoved, batchBytes) => {
            removed += batchRemoved;
            bytes += batchBytes;
            removedTotal.inc(batchRemoved);
            bytesTotal.inc(batchBytes);
          },
        });

  async function pass(): Promise<PassResult> {
    if (archiver === null || days === null) return { ran: false, removed: 0, bytes: 0 };
    const result = await archiver.archiveOlderThan(days);
    if (result.removed > 0) logger.info({ removed: result.removed, bytes: result.bytes }, 'final items archived');
    return result;
  }

  let running: Promise<unknown> = Promise.resolve();
  const timer =
    archiver === null
      ? null
      : setInterval(() => {
          running = pass().catch((error: unknown) =>
            logger.warn({ err: { message: (error as Error).message } }, 'archiving pass failed'),
          );
        }, everyMs);
  timer?.unref();

  return {
    pass,
    async health(): Promise<RetentionHealth | null> {
      if (archiver === null) return null;
      return { oldest_final_at: await store.oldestFinal(), items_removed: removed, archive_bytes: bytes };
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

export type Retention = ReturnType<typeof startRetention>;
