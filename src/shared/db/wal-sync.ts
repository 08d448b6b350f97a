import { promises as fs } from 'node:fs';

// The fsync that makes SQLite commits durable, off the event loop: at synchronous = NORMAL a COMMIT only
// write()s its WAL frames, and this module's fdatasync on libuv's threadpool puts them on disk.
// Why: docs/design-decisions.md, "Durability".

export interface WalSync {
  /** Resolves once a flush of the WAL that began after this call has finished; rejects if it failed. */
  durable(): Promise<void>;
  /** The error of a flush that failed, after which nothing is answered any more; null while all is well. */
  failed(): Error | null;
  /** Waits for the flush running now, then closes the descriptor. */
  close(): Promise<void>;
}

/** The flush itself: `createWalSync` runs one at a time. Tests pass their own to hold it. */
export type Flush = () => Promise<void>;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Orders flushes so that each `durable()` is answered by one that began after it.
 *
 * A flush that fails breaks it for good: after a failed fsync Linux may have dropped the dirty
 * pages and marked them clean, so a later flush can succeed without the earlier frames being on
 * disk, and the WAL's checksum chain makes every later frame unreadable after a power loss
 * without them. So, as PostgreSQL does after such an error, nothing is acknowledged any more:
 * every later `durable()` fails, `failed()` says why (the health check turns 503), and only a
 * restart (SQLite rereads the WAL) brings writes back.
 */
export function createSerialSync(
  flush: Flush,
  close: () => Promise<void> = async () => {},
  onFailure: (error: Error) => void = () => {},
): WalSync {
  let waiting: Waiter[] = [];
  let running: Promise<void> | null = null;
  let broken: Error | null = null;

  async function loop(): Promise<void> {
    while (waiting.length > 0) {
      const served = waiting;
      waiting = [];
      try {
        if (broken) throw broken;
        await flush();
        for (const waiter of served) waiter.resolve();
      } catch (error) {
        if (!broken) {
          broken = error instanceof Error ? error : new Error(String(error));
          onFailure(broken);
        }
        for (const waiter of served) waiter.reject(broken);
      }
    }
    running = null;
  }

  return {
    durable: () =>
      new Promise<void>((resolve, reject) => {
        // Before the loop: started broken, it would end before `running` is set, and stick.
        if (broken) return reject(broken);
        waiting.push({ resolve, reject });
        // A flush running now began before this call: the loop runs another once it ends.
        running ??= loop();
      }),
    failed: () => broken,
    close: async () => {
      await running;
      await close();
    },
  };
}

/**
 * The flush of `${databasePath}-wal`. `durable()` resolves once an fdatasync that BEGAN AFTER the call has
 * finished; calls made while one runs share the next, which keeps the order of the commits.
 *
 * One descriptor, opened at the first flush and kept: closing a descriptor drops every POSIX lock the
 * process holds on the file (SQLite locks the database and `-shm`, not `-wal`, but we take no chance).
 * While our connection is open SQLite never removes or replaces the WAL: it deletes it only when the last
 * connection closes (an exclusive lock our shared one prevents) or one leaves WAL mode (we never do), and
 * checkpoints rewrite or truncate the same inode. Someone outside
 * SQLite replacing it (a restore, an `rm`) is noticed by a stat run beside each fdatasync, adding no wait;
 * the new file is then reopened and flushed before anyone is answered.
 */
export function createWalSync(databasePath: string, onFailure: (error: Error) => void): WalSync {
  const path = `${databasePath}-wal`;
  let handle: { file: fs.FileHandle; ino: number; dev: number } | null = null;
  let closed = false;

  // The open file's identity is read once: a descriptor's inode never changes.
  async function open(): Promise<{ file: fs.FileHandle; ino: number; dev: number }> {
    if (closed) throw new Error('the WAL sync is closed');
    if (!handle) {
      const file = await fs.open(path, 'r');
      const { ino, dev } = await file.stat().catch(async (error: unknown) => {
        await file.close().catch(() => undefined);
        throw error;
      });
      handle = { file, ino, dev };
    }
    return handle;
  }

  async function flush(): Promise<void> {
    const opened = await open();
    const [, named] = await Promise.all([opened.file.datasync(), fs.stat(path).catch(() => null)]);
    if (named && named.ino === opened.ino && named.dev === opened.dev) return;
    // Replaced or deleted behind SQLite's back (see the top): flush what the path names now.
    handle = null;
    await opened.file.close().catch(() => undefined);
    if (named) await (await open()).file.datasync();
  }

  return createSerialSync(
    flush,
    async () => {
      closed = true;
      await handle?.file.close().catch(() => undefined);
      handle = null;
    },
    onFailure,
  );
}

/** `:memory:` has no file to flush: answers as soon as the commit returned, as before. */
export const NO_SYNC: WalSync = {
  durable: () => Promise.resolve(),
  failed: () => null,
  close: () => Promise.resolve(),
};
