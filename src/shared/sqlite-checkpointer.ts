import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from 'pino';

// Checkpoints off the event loop (issue 23). At synchronous = NORMAL the commits no longer
// fsync (wal-sync.ts flushes the WAL on the threadpool), but SQLite's auto-checkpoint still runs
// inside the COMMIT that takes the WAL past 1,000 pages, on the main thread, and fsyncs the WAL
// and the database file there. So the main connection turns it off (wal_autocheckpoint = 0) and
// a worker thread with a connection of its own (sqlite-checkpointer-thread.cjs) runs PASSIVE
// checkpoints: when told the WAL has grown (every `everyCommits` flushes asked for), and on a
// timer. PASSIVE never waits and never blocks the writer; once everything is copied back, the
// next write starts the WAL over from its beginning, so the file stops growing.
//
// Without checkpoints the WAL would grow without bound (and reads slow down with it). So the
// main connection auto-checkpoints (wal_autocheckpoint = 1000, SQLite's default) whenever no
// thread is ready: until the first one says so, and from the moment one dies (an error, an
// exit) until its replacement is up. A death is logged and a new thread started after
// `restartMs`. Checkpoints are an optimisation of the WAL's size, never of durability: a thread
// that dies mid-checkpoint loses nothing (SQLite's checkpoint is restartable).
//
// The thread's connection is in this process, like the service's: SQLite's unix VFS keeps one
// record of POSIX locks per file per process, shared by every connection of the process (the
// native module is loaded once, whichever thread opens it), and when a connection closes it
// keeps the descriptor open while another connection still holds locks on that file. So the
// thread's open and close cannot drop the service connection's locks.

const THREAD_FILE = new URL('./sqlite-checkpointer-thread.cjs', import.meta.url);

/** SQLite's default auto-checkpoint, in pages: the fallback while no thread runs. */
const FALLBACK_PAGES = 1_000;

export interface CheckpointResult {
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Of those, frames copied back into the database. */
  checkpointed: number;
}

export interface CheckpointerOptions {
  /** Flushes asked for (commits) between two nudges to the thread. */
  everyCommits: number;
  /** The thread's own timer. */
  intervalMs: number;
  /** The wait before a dead thread is replaced. */
  restartMs: number;
  /** Told of every checkpoint's result (tests). */
  onCheckpoint?: (result: CheckpointResult) => void;
  /** Given every thread started (tests stop one to see the service survive it). */
  onThread?: (thread: Worker) => void;
  /** Fault injection (TEST_SQLITE_CHECKPOINTER_EXIT_AFTER): the first thread exits after this many checkpoints. */
  exitAfter?: number | null;
}

const DEFAULTS = { everyCommits: 100, intervalMs: 1_000, restartMs: 1_000 } as const;

export interface Checkpointer {
  /** One more commit will be in the WAL: every `everyCommits`, the thread is told. */
  committed(): void;
  /** Ends the thread and its connection. */
  stop(): Promise<void>;
}

type ThreadMessage = { type: 'ready' } | ({ type: 'checkpointed' } & CheckpointResult);

export function startCheckpointer(
  raw: BetterSqlite3.Database,
  path: string,
  busyTimeoutMs: number,
  logger: Logger,
  options: Partial<CheckpointerOptions> = {},
): Checkpointer {
  const { everyCommits, intervalMs, restartMs, onCheckpoint, onThread, exitAfter = null } = { ...DEFAULTS, ...options };
  let first = true;
  let thread: Worker | null = null;
  let ready = false;
  let stopping = false;
  let commits = 0;
  let restart: NodeJS.Timeout | undefined;

  const autoCheckpoint = (pages: number) => {
    if (raw.open) raw.pragma(`wal_autocheckpoint = ${pages}`);
  };

  function start(): void {
    autoCheckpoint(FALLBACK_PAGES);
    const started = new Worker(THREAD_FILE, { workerData: { path, busyTimeoutMs, intervalMs, exitAfter: first ? exitAfter : null } });
    first = false;
    // The service's exit never waits for it (close stops it properly).
    started.unref();
    thread = started;
    ready = false;
    started.on('message', (message: ThreadMessage) => {
      if (thread !== started) return;
      if (message.type === 'ready') {
        ready = true;
        autoCheckpoint(0);
      } else {
        onCheckpoint?.({ busy: message.busy, log: message.log, checkpointed: message.checkpointed });
      }
    });
    started.on('error', (error) => {
      logger.error({ err: { message: error.message } }, 'SQLite checkpointer thread failed');
    });
    started.on('exit', (code) => {
      if (thread !== started) return;
      thread = null;
      ready = false;
      if (stopping) return;
      // Until a new thread is up, the commits checkpoint as SQLite would by default.
      autoCheckpoint(FALLBACK_PAGES);
      logger.error({ code }, 'SQLite checkpointer thread died; the writes checkpoint on the event loop until it restarts');
      restart = setTimeout(() => {
        restart = undefined;
        if (!stopping) start();
      }, restartMs);
      restart.unref();
    });
    onThread?.(started);
  }

  start();
  return {
    committed() {
      if (++commits < everyCommits || !ready) return;
      commits = 0;
      thread?.postMessage('checkpoint');
    },
    async stop() {
      stopping = true;
      if (restart) clearTimeout(restart);
      const running = thread;
      if (!running) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.postMessage('stop');
      // A thread busy in a long checkpoint (or stuck) is not waited for forever.
      const timeout = setTimeout(() => void running.terminate(), 5_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
