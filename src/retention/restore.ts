import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { fromArchiveLine } from './lines.js';
import type { RetentionStore } from './store/port.js';

// `agentdesk restore-archive FILE`: archived items back into the database with their ids. An id
// that exists is skipped and counted; parents and dependencies are linked once every line is in,
// since an archive holds a child before its parent and a dependent before what it waited on.

export interface RestoreResult {
  restored: number;
  skipped: number;
  /** Parents and dependencies linked again (those whose other item exists). */
  links: number;
}

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** The file's lines: a day file (gzip) or the JSON lines `agentdesk archive` wrote. */
async function linesOf(path: string): Promise<AsyncIterable<string>> {
  const file: Readable = createReadStream(path);
  const input = (await isGzip(path)) ? file.pipe(createGunzip()) : file;
  file.on('error', (error) => input.destroy(error));
  return createInterface({ input, crlfDelay: Infinity });
}

export async function restoreArchive(store: RetentionStore, path: string): Promise<RestoreResult> {
  const result: RestoreResult = { restored: 0, skipped: 0, links: 0 };
  const toLink: { id: string; parentId: string | null; dependsOn: string[] }[] = [];
  let lineNumber = 0;
  for await (const text of await linesOf(path)) {
    lineNumber += 1;
    if (text.trim() === '') continue;
    const { rows, parentId } = fromArchiveLine(text, lineNumber);
    if (await store.restoreItem(rows)) {
      result.restored += 1;
      if (parentId !== null || rows.dependsOn.length > 0) {
        toLink.push({ id: rows.item.id, parentId, dependsOn: rows.dependsOn });
      }
    } else {
      result.skipped += 1;
    }
  }
  for (const link of toLink) result.links += await store.relink(link.id, link.parentId, link.dependsOn);
  return result;
}
