import { promises as fs } from 'node:fs';

// The fsync that makes SQLite commits durable, off the event loop. The write
// connection runs with synchronous = NORMAL: in WAL mode a COMMIT then only write()s its frames
// to the `-wal` file, and nothing is on disk until someone flushes that file. This module is the
// someone: `durable()` resolves once an fdatasync of the WAL that BEGAN AFTER the call has
// finished, run by libuv's threadpool while the event loop goes on. Calls made while a flush
// runs share the next one: that is the group commit of the flushes, and it keeps the order
// (every flush covers everything written before it began, and they run one after another).
//
// One descriptor on the WAL, opened at the first flush (the file exists once a commit has
// written to it) and kept until close: closing a descriptor of a file drops every POSIX lock
// the process holds on that file, so we never open and close per flush. (SQLite locks the
// database and `-shm` files, not `-wal`, but we take no chance.)
//
// Why the WAL's inode does not change under us while our connection is open: SQLite deletes
// the WAL only when the last connection to the database closes (it checks by taking an
// exclusive lock on the database file, which our open connection's shared lock prevents), or
// when a connection leaves WAL mode (we never do; that too needs every other connection gone).
// A checkpoint never replaces the file: PASSIVE and RESTART rewrite it in place, TRUNCATE
// truncates the same inode. What remains is someone outside SQLite deleting or replacing the
// file (a restore, an `rm`): then every flush would go to a file nobody reads. That costs one
// stat per flush to notice, run alongside the fdatasync on the threadpool, so it adds no wait:
// when the path names another inode, we reopen and flush the new file before answering.

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

/** The flush of `${databasePath}-wal` on a descriptor kept open for the connection's life. */
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
