import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { fetchJson } from '../helpers/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../helpers/processes.js';

// Issue 23: on SQLite every write runs on a writer thread (src/shared/sqlite-writer.ts). Here
// that thread dies in the middle of a burst of POSTs (TEST_SQLITE_WRITER_EXIT_AT_COMMIT: it exits
// at that COMMIT, a batch written and not committed, as a crash would). The service must say so
// in its log, answer every request (a 201, or a 503 for what was in flight: new items that were
// in flight are mostly written again on the new thread, coalesce.ts retrying the failed batch one
// at a time), never hang, go on writing on a new thread, and every 201 must be on disk: after a
// kill -9 and a restart, every one is there.
// SQLite only: PostgreSQL has no writer thread.

const BURST = 200;
const CONCURRENCY = 8;
const EXIT_AT_COMMIT = 25;

interface Acknowledged {
  id: string;
  description: string;
}

describe('the SQLite writer thread dies mid-burst', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('answers every request with a 201 or a 503, recovers, and loses no acknowledged item', { timeout: 120_000 }, async () => {
    database = await createTestDatabase('sqlite');
    const env = { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn' };
    const first: ServerProcess = await startWorkServer({
      env: { ...env, TEST_SQLITE_WRITER_EXIT_AT_COMMIT: String(EXIT_AT_COMMIT) },
      startTimeoutMs: 60_000,
    });

    const acknowledged: Acknowledged[] = [];
    const statuses: number[] = [];
    let sent = 0;
    const client = async () => {
      while (sent < BURST) {
        const description = `writer death item ${sent++}`;
        // fetchJson gives up after 15 s with status 0: a hang fails the test below.
        const answer = await fetchJson(first.url, 'POST', '/work', { type: 'writer_death', description });
        statuses.push(answer.status);
        if (answer.status === 201) acknowledged.push({ id: answer.body.id, description });
        else if (answer.status !== 0) expect(answer.contentType).toContain('application/problem+json');
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));

    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
    // The thread died, once, and the service went on on a new one: most items were written.
    expect(first.stdout().match(/SQLite writer thread died/g)?.length, first.stdout()).toBe(1);
    expect(acknowledged.length).toBeGreaterThan(BURST / 2);
    const after = await fetchJson(first.url, 'POST', '/work', { type: 'writer_death', description: 'after the death' });
    expect(after.status).toBe(201);
    acknowledged.push({ id: after.body.id, description: 'after the death' });

    // On disk, not only in this process: kill -9, restart, read every acknowledged item.
    await first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const second = await startWorkServer({ env, startTimeoutMs: 60_000 });
    const missing: string[] = [];
    for (const item of acknowledged) {
      const answer = await fetchJson(second.url, 'GET', `/work/${item.id}`);
      if (answer.status !== 200 || answer.body.description !== item.description) missing.push(item.id);
    }
    expect(missing).toEqual([]);
    const listed = await fetchJson<unknown[]>(second.url, 'GET', '/work?type=writer_death&limit=1000');
    expect(listed.body.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(listed.body.length).toBeLessThanOrEqual(BURST + 1);
    expect(await second.stop()).toEqual({ code: 0, signal: null });
  });
});
