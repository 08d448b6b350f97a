import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from 'pino';
import { type ControlledWriteGate, createWriteGate } from './sqlite-write-gate.js';

// SQLite checkpoints on a worker thread, so the auto-checkpoint's fsyncs leave the event loop, and the
// WAL's bound (a RESTART under a write hold). Why: docs/design-decisions.md, "Durability".

/**
 * The thread's connection lives in this process, like the service's: SQLite's unix VFS keeps one record of
 * POSIX locks per file per process and keeps a descriptor open while another connection holds locks, so the
 * thread's open and close cannot drop the service connection's locks.
 */
const THREAD_FILE = new URL('./sqlite-checkpointer-thread.cjs', import.meta.url);

/**
 * SQLite's default auto-checkpoint, in pages: the fallback while no thread is ready (before the first, and
 * from a death until the replacement is up), since without checkpoints the WAL grows without bound.
 */
const FALLBACK_PAGES = 1_000;

export const CHECKPOINT_KINDS = { passive: 'passive', restart: 'restart' } as const;
export type CheckpointKind = (typeof CHECKPOINT_KINDS)[keyof typeof CHECKPOINT_KINDS];
/** done: the whole log copied back (and, for a restart, the log reset); partial: some left behind (PASSIVE); busy: a reader or another process's writer held the RESTART up; failed: an error (a full disk). */
export const CHECKPOINT_OUTCOMES = { done: 'done', partial: 'partial', busy: 'busy', failed: 'failed' } as const;
export type CheckpointOutcome = (typeof CHECKPOINT_OUTCOMES)[keyof typeof CHECKPOINT_OUTCOMES];

export interface CheckpointResult {
  kind: CheckpointKind;
  outcome: CheckpointOutcome;
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Of those, frames copied back into the database. */
  checkpointed: number;
  /** The log is over its bound and a RESTART has failed since it started over. */
  stuck: boolean;
}

/** The WAL as the metrics and /health see it. */
export interface WalStatus {
  /** The `-wal` file's size now. */
  bytes: number;
  /** SQLITE_WAL_MAX_MB in bytes; 0 when off. */
  boundBytes: number;
  /** Frames the last checkpoint left in the log uncopied. */
  pagesLeft: number;
  /** Over its bound, and the RESTART that would reset it could not finish yet. */
  overBound: boolean;
}

export interface CheckpointerOptions {
  /** Flushes asked for (commits) between two nudges to the thread. */
  everyCommits: number;
  /** The thread's own timer. */
  intervalMs: number;
  /** The wait before a dead thread is replaced. */
  restartMs: number;
  /** The log's size that brings on a RESTART checkpoint (SQLITE_WAL_MAX_MB); 0: never. */
  maxBytes: number;
  /** The longest our writers are held for one RESTART. */
  holdMs: number;
  /** How long a RESTART waits for readers on the old log (less than `holdMs`). */
  restartWaitMs: number;
  /** After a RESTART that readers held up, the wait before the next attempt. */
  retryMs: number;
  /** Told of every checkpoint's result (the metrics, tests). */
  onCheckpoint?: (result: CheckpointResult) => void;
  /** Told how long each hold kept our writers waiting. */
  onHold?: (seconds: number) => void;
  /** Given every thread started (tests stop one to see the service survive it). */
  onThread?: (thread: Worker) => void;
  /** Fault injection (TEST_SQLITE_CHECKPOINTER_EXIT_AFTER): the first thread exits after this many checkpoints. */
  exitAfter?: number | null;
}

const DEFAULTS = {
  everyCommits: 100,
  intervalMs: 1_000,
  restartMs: 1_000,
  maxBytes: 0,
  holdMs: 2_000,
  restartWaitMs: 500,
  retryMs: 1_000,
} as const;

export interface Checkpointer {
  /** One more commit will be in the WAL: every `everyCommits`, the thread is told. */
  committed(): void;
  /** What the driver asks before a write begins (sqlite-write-gate.ts). */
  readonly gate: ControlledWriteGate;
  status(): WalStatus;
  /** Ends the thread and its connection. */
  stop(): Promise<void>;
}

type ThreadMessage =
  | { type: 'ready' }
  | ({ type: 'checkpointed' } & CheckpointResult)
  | { type: 'hold'; id: number }
  | { type: 'release'; id: number };

/**
 * Turns the main connection's auto-checkpoint off and has the thread run PASSIVE checkpoints every
 * `everyCommits` flushes and on a timer. PASSIVE never waits and never blocks the writer; once all is copied
 * back, the next write starts the WAL over, so the file stops growing. Writes that never pause leave PASSIVE
 * always behind, so past `maxBytes` the thread asks for a hold: the write gate closes (our writers wait,
 * reads go on), the running transaction ends, the thread runs a RESTART and says 'release'; `holdMs` bounds
 * the hold whatever the thread does. A dead thread is logged and replaced after `restartMs`; it loses
 * nothing, as checkpoints size the WAL and never make anything durable (and SQLite's are restartable).
 */
export function startCheckpointer(
  raw: BetterSqlite3.Database,
  path: string,
  busyTimeoutMs: number,
  logger: Logger,
  options: Partial<CheckpointerOptions> = {},
): Checkpointer {
  const {
    everyCommits,
    intervalMs,
    restartMs,
    maxBytes,
    holdMs,
    restartWaitMs,
    retryMs,
    onCheckpoint,
    onHold,
    onThread,
    exitAfter = null,
  } = {
    ...DEFAULTS,
    ...options,
  };
  const gate = createWriteGate();
  let last: CheckpointResult | null = null;
  /** The hold under way: its id, when it began, and the timer that bounds it. */
  let holding: { id: number; started: number; timer: NodeJS.Timeout } | null = null;
  let first = true;
  let thread: Worker | null = null;
  let ready = false;
  let stopping = false;
  let commits = 0;
  let restart: NodeJS.Timeout | undefined;

  const autoCheckpoint = (pages: number) => {
    if (raw.open) raw.pragma(`wal_autocheckpoint = ${pages}`);
  };

  function release(id: number): void {
    if (holding?.id !== id) return;
    clearTimeout(holding.timer);
    onHold?.((performance.now() - holding.started) / 1000);
    holding = null;
    gate.open();
  }

  function hold(worker: Worker, id: number): void {
    if (holding) release(holding.id);
    // Whatever the thread does, the writers wait no longer than this.
    const timer = setTimeout(() => {
      worker.postMessage({ type: 'expired', id });
      release(id);
    }, holdMs);
    timer.unref();
    holding = { id, started: performance.now(), timer };
    gate.close(
      () => raw.open && raw.inTransaction,
      () => {
        if (holding?.id === id) worker.postMessage({ type: 'held', id });
      },
    );
  }

  function start(): void {
    autoCheckpoint(FALLBACK_PAGES);
    const started = new Worker(THREAD_FILE, {
      workerData: {
        path,
        busyTimeoutMs,
        intervalMs,
        maxBytes,
        restartWaitMs: Math.min(restartWaitMs, holdMs / 2),
        retryMs,
        exitAfter: first ? exitAfter : null,
      },
    });
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
      } else if (message.type === 'hold') hold(started, message.id);
      else if (message.type === 'release') release(message.id);
      else {
        const { kind, outcome, busy, log, checkpointed, stuck } = message;
        last = { kind, outcome, busy, log, checkpointed, stuck };
        onCheckpoint?.(last);
      }
    });
    started.on('error', (error) => {
      logger.error({ err: { message: error.message } }, 'SQLite checkpointer thread failed');
    });
    started.on('exit', (code) => {
      if (thread !== started) return;
      thread = null;
      ready = false;
      if (holding) release(holding.id);
      if (stopping) return;
      // Until a new thread is up, the commits checkpoint as SQLite would by default.
      autoCheckpoint(FALLBACK_PAGES);
      logger.error(
        { code },
        'SQLite checkpointer thread died; the writes checkpoint on the event loop until it restarts',
      );
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
    gate,
    status() {
      let bytes = 0;
      try {
        bytes = statSync(`${path}-wal`).size;
      } catch {
        // No WAL yet, or just removed at close: nothing in it.
      }
      return {
        bytes,
        boundBytes: maxBytes,
        pagesLeft: last && last.log >= 0 ? last.log - last.checkpointed : 0,
        overBound: last?.stuck ?? false,
      };
    },
    async stop() {
      stopping = true;
      if (restart) clearTimeout(restart);
      if (holding) release(holding.id);
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
