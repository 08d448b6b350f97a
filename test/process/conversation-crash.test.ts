import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { killAllServers, startWorkServer } from '../support/processes.js';

// Answers survive kill -9: a burst of answers to questions on held items, the work
// service killed after some were acknowledged. After the restart every acknowledged answer is
// there with its item back in progress for the same agent on a fresh lease, and an answer that
// was not acknowledged is either wholly there or wholly absent (never an answered question with
// its item still blocked, nor an open one with its item moving again).

const stores = await storesUnderTest();

describe.each(stores)('kill -9 during a burst of answers on %s', (kind) => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  const ITEMS = 60;
  const KILL_AFTER = 20;

  it('every acknowledged answer and its move survive; the rest are all or nothing', async () => {
    database = await createTestDatabase(kind);
    const env = { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn' };
    const first = await startWorkServer({ env, startTimeoutMs: 60_000 });
    const questions: { item: string; question: string }[] = [];
    for (let i = 0; i < ITEMS; i += 1) {
      const submitted = await fetchJson(first.url, 'POST', '/work', { type: 'asks', description: `step ${i}` });
      expect(submitted.status).toBe(201);
      const claimed = await fetchJson(first.url, 'POST', '/work/claim', {
        agent: 'runner',
        types: ['asks'],
        lease_s: 600,
      });
      expect(claimed.body).toMatchObject({ id: submitted.body.id, status: 'in_progress' });
      const asked = await fetchJson(first.url, 'POST', `/work/${submitted.body.id}/questions`, {
        question: `go ahead with step ${i}?`,
        options: ['yes', 'no'],
      });
      expect(asked.status, JSON.stringify(asked.body)).toBe(201);
      questions.push({ item: submitted.body.id as string, question: asked.body.id as string });
    }

    const acknowledged = new Set<string>();
    let next = 0;
    let killed: Promise<unknown> | undefined;
    const person = async () => {
      while (next < ITEMS) {
        const { item, question } = questions[next++]!;
        const answer = await fetchJson(first.url, 'POST', `/work/${item}/questions/${question}/answer`, {
          option: 'yes',
        });
        if (answer.status === 0) return; // the server is gone
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        acknowledged.add(question);
        if (acknowledged.size === KILL_AFTER) killed = first.kill();
      }
    };
    await Promise.all(Array.from({ length: 6 }, person));
    await killed;
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(acknowledged.size).toBeLessThan(ITEMS);

    const second = await startWorkServer({ env, startTimeoutMs: 60_000 });
    let answered = 0;
    for (const { item, question } of questions) {
      const stored = (await fetchJson(second.url, 'GET', `/work/${item}/questions/${question}`)).body;
      const row = (await fetchJson(second.url, 'GET', `/work/${item}`)).body;
      if (acknowledged.has(question)) expect(stored.status, `acknowledged answer to ${question}`).toBe('answered');
      if (stored.status === 'answered') {
        answered += 1;
        expect(stored.option).toBe('yes');
        expect(row).toMatchObject({ status: 'in_progress', assigned_agent: 'runner' });
        expect(row.lease_expires_at).not.toBeNull();
      } else {
        expect(stored.status).toBe('open');
        expect(row).toMatchObject({ status: 'blocked', assigned_agent: 'runner', lease_expires_at: null });
      }
    }
    expect(answered).toBeGreaterThanOrEqual(KILL_AFTER);
  }, 180_000);
});
