import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// kill -9 while the WAL's bound is at work: with SQLITE_WAL_MAX_MB at its least (1) and large
// items, the writers are held and the log reset again and again during a burst; the SIGKILL
// lands once several resets have finished, with requests in flight. Every 201 is there after a
// restart on the same file.

const CONCURRENCY = 8;
const DESCRIPTION = 'w'.repeat(9_000);

async function restartsDone(url: string): Promise<number> {
  const answer = await fetch(`${url}/metrics`);
  const text = await answer.text();
  const line = /^agentdesk_db_sqlite_checkpoints_total\{kind="restart",outcome="done"\} (\d+)/m.exec(text);
  return line ? Number(line[1]) : 0;
}

describe('SIGKILL while the SQLite WAL is being reset', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('loses no item that got a 201', { timeout: 180_000 }, async () => {
    database = await createTestDatabase('sqlite');
    const env = { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn', SQLITE_WAL_MAX_MB: '1' };
    const first = await startWorkServer({ env, startTimeoutMs: 60_000 });

    const acknowledged: string[] = [];
    let sent = 0;
    let stop = false;
    const client = async () => {
      while (!stop) {
        const answer = await fetchJson(first.url, 'POST', '/work', {
          type: 'reset_crash',
          description: `${sent++} ${DESCRIPTION}`,
        });
        if (answer.status === 0) return;
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
        acknowledged.push(answer.body.id);
      }
    };
    const clients = Promise.all(Array.from({ length: CONCURRENCY }, client));
    await expect.poll(() => restartsDone(first.url), { timeout: 120_000, interval: 200 }).toBeGreaterThanOrEqual(3);
    await first.kill();
    stop = true;
    await clients;
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const second: ServerProcess = await startWorkServer({ env, startTimeoutMs: 60_000 });
    const missing: string[] = [];
    for (const id of acknowledged) {
      if ((await fetchJson(second.url, 'GET', `/work/${id}`)).status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
    expect(await second.stop()).toEqual({ code: 0, signal: null });
  });
});
