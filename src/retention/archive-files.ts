import { mkdir, open, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { BatchStart } from './store/port.js';

// The day files under ARCHIVE_DIR: each batch is one gzip member appended to the day's file (a
// gzip file of several members reads as one stream), on disk before its rows are removed.

const compress = promisify(gzip);

export function dayFile(dir: string, at: Date): string {
  return join(dir, `items-${at.toISOString().slice(0, 10)}.jsonl.gz`);
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Cuts a file back to where a batch that did not finish began: its rows are still in the database. */
export async function cutBack(start: BatchStart): Promise<void> {
  if ((await sizeOf(start.file)) > start.offset) await truncate(start.file, start.offset);
}

export interface ArchiveFiles {
  /** Where a batch written now would begin. */
  next(at: Date): Promise<BatchStart>;
  /** Appends the lines as one member and fsyncs; answers the bytes written. */
  append(start: BatchStart, lines: readonly string[]): Promise<number>;
}

export function archiveFiles(dir: string): ArchiveFiles {
  return {
    async next(at) {
      await mkdir(dir, { recursive: true });
      const file = dayFile(dir, at);
      return { file, offset: await sizeOf(file) };
    },

    async append(start, lines) {
      const member = await compress(Buffer.from(lines.map((line) => `${line}\n`).join('')));
      const handle = await open(start.file, 'a');
      try {
        await handle.write(member);
        await handle.sync();
      } finally {
        await handle.close();
      }
      // A new file's name is durable only once its directory is.
      if (start.offset === 0) await syncDirectory(dir);
      return member.length;
    },
  };
}
