import type { Kysely, Transaction } from 'kysely';

// SQLite makes a commit durable with an fsync (about a millisecond here), and better-sqlite3
// runs it on the event loop: one transaction per request caps a server at about a thousand
// writes a second, whatever the CPU could do. Group commit lifts the cap: the transactions
// that arrive while one batch runs wait for the next, and a batch runs them one after another
// inside a single database transaction, each in its own savepoint, so one failing rolls back
// alone. Nobody hears back before the batch's COMMIT has returned, so an answer still means
// the write is on disk. SQLite has one writer anyway, so running them in turn loses nothing.

const SAVEPOINT = 'unit';
/** Bounds how long one batch holds the connection (reads wait for it). */
const MAX_BATCH = 256;
/**
 * better-sqlite3 runs every statement on the event loop, so a full batch (hundreds of
 * statements) would hold the loop for as long; every this-many ms it is given back between
 * two units. The batch keeps the connection and the transaction meanwhile.
 */
const SLICE_MS = 5;

interface Job {
  work: (trx: Transaction<any>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

export type TransactionRunner = <T>(work: (trx: Transaction<any>) => Promise<T>) => Promise<T>;

export function createGroupCommit(kysely: Kysely<any>): TransactionRunner {
  const queue: Job[] = [];
  let scheduled = false;

  async function runBatch(jobs: Job[]): Promise<void> {
    let settled: Settled[] = [];
    try {
      const trx = await kysely.startTransaction().execute();
      try {
        let sliceStarted = performance.now();
        for (const job of jobs) {
          if (performance.now() - sliceStarted > SLICE_MS) {
            await new Promise((resume) => setImmediate(resume));
            sliceStarted = performance.now();
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
      settled = jobs.map(() => ({ ok: false, error }));
    }
    jobs.forEach((job, index) => {
      const outcome = settled[index]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) await runBatch(queue.splice(0, MAX_BATCH));
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
