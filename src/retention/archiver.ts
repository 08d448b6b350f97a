import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type ArchiveFiles, cutBack } from './archive-files.js';
import { toArchiveLine } from './lines.js';
import type { RetentionStore } from './store/port.js';

// The archiving pass: under the one lease, batch by batch, the removable items' lines are written
// (a file fsynced, or a stream drained) and only then their rows removed. A batch a crash cut
// short is cut out of its file before anything else, so no item is lost or kept twice.

export const BATCH_SIZE = 100;
const LEASE_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** Where the lines go: the day files, or a stream (`agentdesk archive`). */
export type ArchiveTarget = { files: ArchiveFiles } | { stream: (lines: readonly string[]) => Promise<number> };

export interface PassResult {
  /** False when another instance held the lease: nothing was done. */
  ran: boolean;
  removed: number;
  bytes: number;
}

export interface ArchiverDeps {
  store: RetentionStore;
  target: ArchiveTarget;
  now: () => Date;
  logger: Logger;
  batchSize?: number;
  /** Told of each batch once written and removed. */
  onBatch?: (removed: number, bytes: number) => void;
  /** Runs after a batch is on disk and before its rows go: tests stop the process there. */
  afterWrite?: () => Promise<void> | void;
}

export class LeaseLostError extends Error {
  constructor() {
    super('another instance took the archiving lease');
    this.name = 'LeaseLostError';
  }
}

export function createArchiver({
  store,
  target,
  now,
  logger,
  batchSize = BATCH_SIZE,
  onBatch,
  afterWrite,
}: ArchiverDeps) {
  const holder = randomUUID();
  const leaseUntil = () => new Date(now().getTime() + LEASE_MS).toISOString();

  async function batch(before: string): Promise<{ removed: number; bytes: number }> {
    const ids = await store.removable(before, batchSize);
    if (ids.length === 0) return { removed: 0, bytes: 0 };
    const rows = await store.readItems(ids);
    const at = now();
    const lines = rows.map((item) => toArchiveLine(item, at.toISOString()));
    const start = 'files' in target ? await target.files.next(at) : null;
    if (!(await store.startBatch(holder, start, leaseUntil()))) throw new LeaseLostError();
    const bytes = start && 'files' in target ? await target.files.append(start, lines) : await streamed(lines);
    await afterWrite?.();
    const removed = await store.removeItems(
      holder,
      rows.map(({ item }) => ({ id: item.id, version: item.version })),
    );
    if (removed === null) throw new LeaseLostError();
    onBatch?.(removed, bytes);
    return { removed, bytes };
  }

  function streamed(lines: readonly string[]): Promise<number> {
    if (!('stream' in target)) throw new Error('no stream to write to');
    return target.stream(lines);
  }

  /** Archives and removes what was final before `before` (ISO), in batches, under the lease. */
  async function archiveBefore(before: string): Promise<PassResult> {
    const lease = await store.takeLease(holder, now().toISOString(), leaseUntil());
    if (!lease.taken) return { ran: false, removed: 0, bytes: 0 };
    let removed = 0;
    let bytes = 0;
    try {
      if (lease.unfinished) {
        // Wherever the crashed pass was writing (a stream's batch leaves no file to cut).
        await cutBack(lease.unfinished);
        logger.warn({ file: lease.unfinished.file }, 'an archiving batch did not finish: cut back and written again');
      }
      for (;;) {
        const done = await batch(before);
        removed += done.removed;
        bytes += done.bytes;
        // Until a batch removes nothing: a removed child or dependent can free its parent or target.
        if (done.removed === 0) break;
      }
    } finally {
      await store.releaseLease(holder);
    }
    return { ran: true, removed, bytes };
  }

  return {
    archiveBefore,
    /** A pass of RETENTION_DAYS: what was final `days` before the clock. */
    archiveOlderThan: (days: number) => archiveBefore(new Date(now().getTime() - days * DAY_MS).toISOString()),
  };
}

export type Archiver = ReturnType<typeof createArchiver>;
