import { StorageFullError } from '../errors.js';
import type { Kysely, Transaction } from 'kysely';
import type { DatabaseSchema } from './schema.js';

// Group commit on SQLite: transactions that arrive together run in one database transaction and are
// answered after one WAL flush, so SQLite is not capped at one fsync per request.
// Why the flush runs off the event loop: docs/design-decisions.md, "Durability".

const SAVEPOINT = 'unit';
/** Bounds how many transactions one batch takes on. */
const MAX_BATCH = 256;
/**
 * Bounds how long one batch runs: it takes no further transaction after this. Statements run on the
 * event loop, so a batch of hundreds would hold the loop, the connection and the write lock (which
 * `npm start`'s other service may be waiting for); the rest wait for the next batch, after the loop's turn.
 */
const DEFAULT_BATCH_MS = 10;

interface Job<DB> {
  work: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Runs `work` on a unit of work (schema.ts) and resolves once it has committed. */
export type TransactionRunner<DB = DatabaseSchema> = <T>(work: (trx: Transaction<DB>) => Promise<T>) => Promise<T>;

export interface GroupCommitOptions {
  batchMs?: number;
  /** Told how many transactions each batch ran (committed or not): the metrics' batch size. */
  onBatch?: (size: number) => void;
  /**
   * Resolves once a flush that began after the call has made the commits durable (wal-sync.ts);
   * by default none is needed (`:memory:`, or a connection at synchronous = FULL).
   */
  durable?: () => Promise<void>;
}

/**
 * Runs the transactions that arrive while one batch runs as the next batch: one after another in a single
 * database transaction, each in its own savepoint so one failing rolls back alone (SQLite has one writer
 * anyway, so running them in turn loses nothing). The batch begins IMMEDIATE (sqlite-driver.ts): it holds
 * the write lock from its first read, so another process writing the file makes it wait, never fail halfway.
 *
 * Nobody hears back before a flush that BEGAN AFTER their batch's COMMIT returned has finished (`durable`),
 * so an answer still means the write is on disk; meanwhile the next batch runs and commits. Answers keep the
 * order of the commits, since every flush covers all written before it began and flushes run one at a time.
 * Until then a read can see a committed write not yet acknowledged: docs/design-decisions.md, "Durability"
 * says why that is acceptable.
 */
export function createGroupCommit<DB = DatabaseSchema>(
  kysely: Kysely<DB>,
  { batchMs = DEFAULT_BATCH_MS, onBatch, durable }: GroupCommitOptions = {},
): TransactionRunner<DB> {
  const queue: Job<DB>[] = [];
  let scheduled = false;

  /** Runs what fits in `batchMs` of `jobs` (at least one) and returns the rest, not begun. */
  async function runBatch(jobs: Job<DB>[]): Promise<Job<DB>[]> {
    const started = performance.now();
    let taken = jobs.length;
    let settled: Settled[] = [];
    let committed = false;
    try {
      const trx = await kysely.startTransaction().execute();
      try {
        for (const [index, job] of jobs.entries()) {
          if (index > 0 && performance.now() - started > batchMs) {
            taken = index;
            break;
          }
          const unit = await trx.savepoint(SAVEPOINT).execute();
          try {
            settled.push({ ok: true, value: await job.work(unit) });
          } catch (error) {
            // A full disk fails the whole batch: SQLite may have rolled the transaction back already,
            // so the units before it are refused too, and every caller gets StorageFullError.
            if (error instanceof StorageFullError) throw error;
            await unit.rollbackToSavepoint(SAVEPOINT).execute();
            settled.push({ ok: false, error });
          }
          await unit.releaseSavepoint(SAVEPOINT).execute();
        }
        await trx.commit().execute();
        committed = true;
      } catch (error) {
        await trx
          .rollback()
          .execute()
          .catch(() => undefined);
        throw error;
      }
    } catch (error) {
      // The batch itself failed (BEGIN, a savepoint or COMMIT): nothing of it was written.
      settled = jobs.slice(0, taken).map(() => ({ ok: false, error }));
    }
    onBatch?.(taken);
    const done = jobs.slice(0, taken);
    const answer = () =>
      done.forEach((job, index) => {
        const outcome = settled[index]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    // A failed unit hears after the flush as well: a write not yet on disk (a unique key) may have decided it.
    if (!committed || !durable) answer();
    // Not awaited: the next batch runs while this one's flush does.
    else
      durable().then(answer, (error: unknown) => {
        // The flush failed: whether the batch is on disk is unknown, as after a crash.
        for (const job of done) job.reject(error);
      });
    return jobs.slice(taken);
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      queue.unshift(...(await runBatch(queue.splice(0, MAX_BATCH))));
      // Timers and I/O run before the next batch; what arrives meanwhile joins it.
      if (queue.length > 0) await new Promise((resume) => setImmediate(resume));
    }
    scheduled = false;
  }

  return (work) =>
    new Promise((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (scheduled) return;
      scheduled = true;
      // After the current I/O phase: every request that arrived with this one joins the batch.
      setImmediate(() => void drain());
    });
}
