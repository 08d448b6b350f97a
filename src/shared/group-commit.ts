import type { Kysely, Transaction } from 'kysely';

// SQLite makes a commit durable with an fsync (about a millisecond here), and better-sqlite3
// runs it on the event loop: one transaction per request caps a server at about a thousand
// writes a second, whatever the CPU could do. Group commit lifts the cap: the transactions
// that arrive while one batch runs wait for the next, and a batch runs them one after another
// inside a single database transaction, each in its own savepoint, so one failing rolls back
// alone. Nobody hears back before the batch's COMMIT has returned, so an answer still means
// the write is on disk. SQLite has one writer anyway, so running them in turn loses nothing.
//
// A batch also ends once it has run for 10 ms: better-sqlite3 runs every statement on the
// event loop, so a batch of hundreds (a burst of classifications) would hold the loop, the
// connection and the write lock (which another process, `npm start`'s other service, may be
// waiting for) for as long. The rest go in the next batch, once the loop has had its turn.
//
// The batch begins IMMEDIATE (sqlite-driver.ts): it holds the write lock from its first read,
// so another process writing the same file makes it wait, never fail halfway.

const SAVEPOINT = 'unit';
/** Bounds how many transactions one batch takes on. */
const MAX_BATCH = 256;
/** Bounds how long one batch runs: it takes no further transaction after this. */
const DEFAULT_BATCH_MS = 10;

interface Job {
  work: (trx: Transaction<any>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

export type TransactionRunner = <T>(work: (trx: Transaction<any>) => Promise<T>) => Promise<T>;

export interface GroupCommitOptions {
  batchMs?: number;
  /** Told how many transactions each batch ran (committed or not): the metrics' batch size. */
  onBatch?: (size: number) => void;
}

export function createGroupCommit(kysely: Kysely<any>, { batchMs = DEFAULT_BATCH_MS, onBatch }: GroupCommitOptions = {}): TransactionRunner {
  const queue: Job[] = [];
  let scheduled = false;

  /** Runs what fits in `batchMs` of `jobs` (at least one) and returns the rest, not begun. */
  async function runBatch(jobs: Job[]): Promise<Job[]> {
    const started = performance.now();
    let taken = jobs.length;
    let settled: Settled[] = [];
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
            await unit.rollbackToSavepoint(SAVEPOINT).execute();
            settled.push({ ok: false, error });
          }
          await unit.releaseSavepoint(SAVEPOINT).execute();
        }
        await trx.commit().execute();
      } catch (error) {
        await trx.rollback().execute().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      // The batch itself failed (BEGIN, a savepoint or COMMIT): nothing of it was written.
      settled = jobs.slice(0, taken).map(() => ({ ok: false, error }));
    }
    onBatch?.(taken);
    jobs.slice(0, taken).forEach((job, index) => {
      const outcome = settled[index]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
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
