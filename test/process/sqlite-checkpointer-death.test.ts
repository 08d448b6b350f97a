import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { straceFor, tracedChild } from '../support/strace.js';

// SQLite's checkpoints run on a thread of the service (src/shared/db/sqlite-checkpointer.ts).
// Here that thread dies (TEST_SQLITE_CHECKPOINTER_EXIT_AFTER=1: it exits after its first
// checkpoint) in the real process, watched with strace. The death is logged, every write after
// it is answered, each acknowledged write still cost an fdatasync of the WAL (the service's own
// flush, wal-sync.ts: SQLite's own syncs are fsync calls, so they are not counted), and after a
// kill -9 and a restart every acknowledged item is there. That the WAL is checkpointed again
// by the thread's replacement is test/shared/sqlite-checkpointer's part.

const WRITES = 30;

const hasStrace = straceFor('the checkpointer-death fsync check');

describe.skipIf(!hasStrace)('the SQLite checkpointer thread dies in a running service', () => {
  let database: TestDatabase | undefined;
  let traceDir: string | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
    if (traceDir) rmSync(traceDir, { recursive: true, force: true });
  });

  it('is logged; every later write is answered, flushed, and survives a kill -9', { timeout: 120_000 }, async () => {
    database = await createTestDatabase('sqlite');
    traceDir = mkdtempSync(join(tmpdir(), 'agentdesk-strace-'));
    const traceFile = join(traceDir, 'trace.txt');
    const env = { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn' };
    const first: ServerProcess = await startWorkServer({
      env: { ...env, TEST_SQLITE_CHECKPOINTER_EXIT_AFTER: '1' },
      startTimeoutMs: 60_000,
      wrap: ({ command, args }) => ({
        command: 'strace',
        args: ['-f', '-qq', '-y', '-e', 'trace=fdatasync', '-o', traceFile, command, ...args],
      }),
    });
    // The thread checkpoints once a second: it is dead within a few.
    await expect
      .poll(() => first.stdout(), { timeout: 20_000, interval: 100 })
      .toContain('SQLite checkpointer thread died');
    const flushesBefore = walFlushes(traceFile);

    const acknowledged: Array<{ id: string; description: string }> = [];
    for (let index = 0; index < WRITES; index += 1) {
      const description = `after the checkpointer died ${index}`;
      const created = await fetchJson(first.url, 'POST', '/work', { type: 'checkpointer_death', description });
      expect(created.status).toBe(201);
      acknowledged.push({ id: created.body.id, description });
    }
    const flushes = walFlushes(traceFile) - flushesBefore;
    expect(flushes, `${flushes} fdatasync calls on the WAL for ${WRITES} acknowledged writes`).toBeGreaterThanOrEqual(
      WRITES,
    );

    // kill -9 the service itself: strace is its parent, and killing strace would only detach it.
    process.kill(tracedChild(first.pid), 'SIGKILL');
    expect((await first.exited).code).not.toBe(0);
    const second = await startWorkServer({ env, startTimeoutMs: 60_000 });
    const missing: string[] = [];
    for (const item of acknowledged) {
      const answer = await fetchJson(second.url, 'GET', `/work/${item.id}`);
      if (answer.status !== 200 || answer.body.description !== item.description) missing.push(item.id);
    }
    expect(missing).toEqual([]);
    expect(await second.stop()).toEqual({ code: 0, signal: null });
  });
});

/** fdatasync calls on the `-wal` file so far (strace -y names the file). */
function walFlushes(traceFile: string): number {
  return readFileSync(traceFile, 'utf8')
    .split('\n')
    .filter((line) => /\bfdatasync\(\d+<[^>]*-wal>\)/.test(line)).length;
}
