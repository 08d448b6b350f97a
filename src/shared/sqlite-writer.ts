import { Worker } from 'node:worker_threads';
import type { QueryResult } from 'kysely';
import type { Logger } from 'pino';

// The main thread's side of the SQLite writer thread (sqlite-writer-thread.cjs): it starts the
// thread, sends it statements and hands back their results. Requests made in one turn of the
// event loop go in one message; pipelined ones (BEGIN, SAVEPOINT, RELEASE) get no answer, so a
// transaction pays a round trip only for the statements whose answer someone reads.
//
// When the thread dies (a crash, a fault injected by a test), every statement waiting on it fails
// with WRITER_STOPPED, which db.ts counts as "database unavailable" (a 503), and so does every
// later statement of a session begun on it: a transaction never continues on another thread,
// where it would run outside the transaction it began. The next session starts a new thread.
// Nothing is answered as written unless its COMMIT came back from the thread, so a death loses
// no acknowledged write; what was in flight is reported as failed (it may or may not be on disk,
// as with any crash: clients retry with idempotency keys).

export const WRITER_STOPPED = 'WRITER_STOPPED';

const THREAD_FILE = new URL('./sqlite-writer-thread.cjs', import.meta.url);

export interface SqliteWriterOptions {
  path: string;
  busyTimeoutMs: number;
  logger: Logger;
  /** Fault injection for the writer-death test: the first thread exits at its COMMIT of this number. */
  exitAtCommit: number | null;
}

interface Request {
  id: number;
  sql: string;
  parameters: readonly unknown[];
  pipelined: boolean;
  /** The last request: close the connection and end the thread. */
  close?: true;
}

interface Reply {
  id: number;
  result?: { rows: unknown[]; changes?: number; lastInsertRowid?: number };
  error?: { message: string; code?: string; name?: string };
}

interface Waiting {
  resolve: (result: QueryResult<unknown>) => void;
  reject: (error: unknown) => void;
}

/** Statements on one writer thread: all of one transaction go through one session. */
export interface WriterSession {
  execute(sql: string, parameters: readonly unknown[], pipelined?: boolean): Promise<QueryResult<unknown>>;
}

export interface SqliteWriter {
  /** A session on the running thread, starting one if none runs. */
  session(): WriterSession;
  /** Lets what was sent finish, then closes the connection and ends the thread. */
  close(): Promise<void>;
}

class WriterStoppedError extends Error {
  readonly code = WRITER_STOPPED;
  constructor(why: string) {
    super(`SQLite writer thread stopped: ${why}`);
  }
}

/** The error the thread reported, rebuilt with its code so isUniqueViolation and friends see it. */
function rebuilt(error: NonNullable<Reply['error']>): Error {
  const rebuiltError = new Error(error.message) as Error & { code?: string };
  if (error.name) rebuiltError.name = error.name;
  if (error.code !== undefined) rebuiltError.code = error.code;
  return rebuiltError;
}

function resultOf(result: NonNullable<Reply['result']>): QueryResult<unknown> {
  if (result.changes === undefined) return { rows: result.rows };
  return {
    rows: [],
    numAffectedRows: BigInt(result.changes),
    insertId: result.lastInsertRowid === undefined ? undefined : BigInt(result.lastInsertRowid),
  };
}

/** One thread's life: its worker, the statements waiting on it, and whether it is gone. */
class WriterThread implements WriterSession {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  #outbox: Request[] = [];
  #nextId = 1;
  #stopped: WriterStoppedError | null = null;
  #closing = false;
  readonly exited: Promise<void>;

  constructor(options: SqliteWriterOptions, exitAtCommit: number | null, onDeath: (thread: WriterThread, error: WriterStoppedError) => void) {
    this.#worker = new Worker(THREAD_FILE, {
      workerData: { path: options.path, busyTimeoutMs: options.busyTimeoutMs, exitAtCommit },
    });
    // Idle, the thread must not keep the process alive (a CLI command that forgot to close);
    // busy, it must (someone awaits its answer).
    this.#worker.unref();
    this.#worker.on('message', (replies: Reply[]) => this.#answer(replies));
    let failure = 'exited';
    this.#worker.on('error', (error) => {
      failure = error.message;
    });
    this.exited = new Promise((resolve) => {
      this.#worker.once('exit', (code) => {
        const error = new WriterStoppedError(this.#closing ? 'closed' : `${failure} (exit code ${code})`);
        this.#stopped = error;
        for (const waiting of this.#waiting.values()) waiting.reject(error);
        this.#waiting.clear();
        if (!this.#closing) onDeath(this, error);
        resolve();
      });
    });
  }

  get alive(): boolean {
    return this.#stopped === null && !this.#closing;
  }

  execute(sql: string, parameters: readonly unknown[], pipelined = false): Promise<QueryResult<unknown>> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = this.#nextId++;
    this.#send({ id, sql, parameters, pipelined });
    if (pipelined) return Promise.resolve({ rows: [] });
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.#worker.ref();
      this.#waiting.set(id, { resolve, reject });
    });
  }

  close(): Promise<void> {
    if (!this.#stopped && !this.#closing) {
      this.#closing = true;
      this.#worker.ref();
      this.#send({ id: 0, sql: '', parameters: [], pipelined: true, close: true });
    }
    return this.exited;
  }

  #send(request: Request): void {
    this.#outbox.push(request);
    if (this.#outbox.length > 1) return;
    // Whatever else this turn sends goes in the same message.
    queueMicrotask(() => {
      const batch = this.#outbox;
      this.#outbox = [];
      if (!this.#stopped) this.#worker.postMessage(batch);
    });
  }

  #answer(replies: Reply[]): void {
    for (const reply of replies) {
      const waiting = this.#waiting.get(reply.id);
      if (!waiting) continue;
      this.#waiting.delete(reply.id);
      if (reply.error) waiting.reject(rebuilt(reply.error));
      else waiting.resolve(resultOf(reply.result!));
    }
    if (this.#waiting.size === 0 && !this.#closing) this.#worker.unref();
  }
}

export function startSqliteWriter(options: SqliteWriterOptions): SqliteWriter {
  let current: WriterThread | null = null;
  let closed = false;
  let started = 0;
  const onDeath = (thread: WriterThread, error: WriterStoppedError) => {
    options.logger.error({ err: { message: error.message } }, 'SQLite writer thread died; what it had not committed failed, and the next write starts a new one');
    if (current === thread) current = null;
  };
  return {
    session() {
      if (closed) throw new WriterStoppedError('the database is closed');
      if (!current || !current.alive) {
        current = new WriterThread(options, started === 0 ? options.exitAtCommit : null, onDeath);
        started += 1;
      }
      return current;
    },
    async close() {
      closed = true;
      await current?.close();
      current = null;
    },
  };
}
