import { existsSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqlitePath } from '../../src/shared/db/database.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { straceFor, tracedChild } from '../support/strace.js';

// Durability, proven rather than assumed. The kill -9 test shows that answers come
// after the commit; it would pass with synchronous=OFF. This one watches the real process with
// strace: every acknowledged write, sent one at a time so each is its own commit, must have cost
// at least one fsync or fdatasync. With synchronous=OFF there are none; with NORMAL (in WAL mode)
// only checkpoints sync, so a few dozen small commits make none either.

const WRITES = 40;

const hasStrace = straceFor('the SQLite fsync check');

describe.skipIf(!hasStrace)('SQLite durability, watched with strace', () => {
  let database: TestDatabase | undefined;
  let traceDir: string | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
    if (traceDir) rmSync(traceDir, { recursive: true, force: true });
  });

  it(`every acknowledged write is fsynced before its answer (${WRITES} sequential POSTs)`, async () => {
    database = await createTestDatabase('sqlite');
    traceDir = mkdtempSync(join(tmpdir(), 'agentdesk-strace-'));
    const traceFile = join(traceDir, 'trace.txt');
    const server: ServerProcess = await startWorkServer({
      env: { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn' },
      startTimeoutMs: 60_000,
      wrap: ({ command, args }) => ({
        command: 'strace',
        args: ['-f', '-qq', '-e', 'trace=fsync,fdatasync', '-o', traceFile, command, ...args],
      }),
    });
    const node = tracedChild(server.pid);

    for (let index = 0; index < WRITES; index += 1) {
      const created = await fetchJson(server.url, 'POST', '/work', {
        type: 'durable',
        description: `durable ${index}`,
      });
      expect(created.status).toBe(201);
    }

    process.kill(node, 'SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });

    const syncs = readFileSync(traceFile, 'utf8')
      .split('\n')
      .filter((line) => /\b(fsync|fdatasync)\(/.test(line)).length;
    expect(syncs, `${syncs} fsync/fdatasync calls for ${WRITES} acknowledged writes`).toBeGreaterThanOrEqual(WRITES);

    // journal_mode=WAL is recorded in the file itself: header bytes 18 and 19 are 2 in WAL mode.
    const file = sqlitePath(database.config.url);
    expect(existsSync(file)).toBe(true);
    const header = Buffer.alloc(20);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, header, 0, 20, 0);
    } finally {
      closeSync(fd);
    }
    expect([header[18], header[19]]).toEqual([2, 2]);
  }, 120_000);
});
