import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// An acknowledged item survives kill -9 of the process. A burst of POSTs, SIGKILL
// while some are still in flight, a restart on the same database: every 201 must be there.

const stores = await storesUnderTest();

const BURST = 400;
const CONCURRENCY = 8;
const KILL_AFTER_ACKS = 120;

interface Acknowledged {
  id: string;
  description: string;
}

describe.each(stores)('SIGKILL mid-burst on %s', (kind) => {
  let database: TestDatabase | undefined;

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('loses no item that got a 201', async () => {
    database = await createTestDatabase(kind);
    const env = { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn' };
    const first = await startWorkServer({ env });

    const acknowledged: Acknowledged[] = [];
    const failures: string[] = [];
    let sent = 0;
    let killed: Promise<unknown> | undefined;

    // Each client posts until the server is gone; the kill lands while the others are mid-request.
    const client = async () => {
      while (sent < BURST) {
        const description = `crash burst item ${sent++}`;
        const answer = await fetchJson(first.url, 'POST', '/work', { type: 'crash_test', description, priority: 2 });
        if (answer.status === 0) {
          failures.push(answer.error ?? 'network error');
          return;
        }
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
        acknowledged.push({ id: answer.body.id, description });
        if (acknowledged.length === KILL_AFTER_ACKS) killed = first.kill();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    await killed;

    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The kill interrupted the burst: some requests never got an answer.
    expect(failures.length).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(acknowledged.length).toBeLessThan(BURST);

    const second: ServerProcess = await startWorkServer({ env });
    const missing: string[] = [];
    for (const item of acknowledged) {
      const answer = await fetchJson(second.url, 'GET', `/work/${item.id}`);
      if (answer.status !== 200 || answer.body.description !== item.description) missing.push(item.id);
    }
    expect(missing).toEqual([]);

    // Items whose answer was lost may exist too, but nothing beyond what was sent.
    const listed = await fetchJson<unknown[]>(second.url, 'GET', '/work?type=crash_test&limit=1000');
    expect(listed.status).toBe(200);
    expect(listed.body.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(listed.body.length).toBeLessThanOrEqual(sent);

    expect(await second.stop()).toEqual({ code: 0, signal: null });
  });
});
