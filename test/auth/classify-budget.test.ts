import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClassifyApp } from '../../src/services/classify.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { captureLogs, testConfig } from '../support/apps.js';
import { ADMIN_SECRET, type AuthPair, bearer, mintToken, startAuthPair } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Each token may classify CLASSIFY_RATE_LIMIT emails a minute; past it, 429 with
// Retry-After. A duplicate served from the store costs nothing, nor does a refused request.
// The count lives in the database, so a second instance shares it.

const LIMIT = 3;
let n = 0;
const email = (subject = `email ${(n += 1)} ${Date.now()}`) => ({
  email_data: { subject, body: `Body of ${subject}` },
});

/**
 * The budget counts per clock minute: the classify services' clock stands still half-way
 * through one, so no test straddles a minute and sees its budget refilled.
 */
const clock = createTestClock(Date.now() - (Date.now() % 60_000) + 30_000);

describe.each(await storesUnderTest())('the classify budget on %s', (kind) => {
  let pair: AuthPair;
  let second: HttpApp;

  beforeAll(async () => {
    pair = await startAuthPair(kind, { CLASSIFY_RATE_LIMIT: String(LIMIT) }, clock.now);
    // Another instance of the classification service on the same database.
    second = await buildClassifyApp({
      config: testConfig(pair.testDatabase, {
        LLM_PROVIDER: 'rules',
        AUTH: 'tokens',
        AGENTDESK_ADMIN_TOKEN: ADMIN_SECRET,
        CLASSIFY_RATE_LIMIT: String(LIMIT),
      }),
      database: pair.database,
      logger: captureLogs('silent').logger,
      now: clock.now,
    });
    await second.ready();
  });
  afterAll(async () => {
    await second?.close();
    await pair?.close();
  });

  const classify = (app: HttpApp, token: string, body: unknown) => call(app, 'POST', '/classify', body, bearer(token));

  it('past the budget: 429 with Retry-After; duplicates, bad requests and refusals are free', async () => {
    const { token } = await mintToken(pair.work, { role: 'intake', name: 'mailroom' });
    const first = email();
    expect((await classify(pair.classify, token, first)).status).toBe(200);
    // The same email again and again: served from the store.
    for (let i = 0; i < 4; i += 1) {
      const again = await classify(pair.classify, token, first);
      expect(again.status).toBe(200);
      expect(again.body.dedupe.status).toBe('duplicate');
    }
    expect((await classify(pair.classify, token, { email_data: { subject: '', body: '' } })).status).toBe(422);
    expect((await classify(pair.classify, token, { ...email(), temperature: 0.5 })).status).toBe(403);
    expect((await classify(pair.classify, token, email())).status).toBe(200);
    expect((await classify(pair.classify, token, email())).status).toBe(200);
    const over = await classify(pair.classify, token, email());
    expect(over.status).toBe(429);
    expect(over.headers['content-type']).toMatch(/^application\/problem\+json/);
    const wait = Number(over.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(over.body.detail).toContain(`${LIMIT} a minute`);
  });

  it('once the budget is spent, a duplicate of an email it classified is still served, free; a new email is a 429', async () => {
    const { token } = await mintToken(pair.work, { role: 'intake', name: 'spent' });
    const graph = (id: string, subject: string) => ({
      id,
      internetMessageId: `<${id}@example.com>`,
      subject,
      body: { contentType: 'text', content: `Body of ${subject}` },
    });
    const sent = [email(), email(), graph(`budget-${kind}-${Date.now()}`, 'a Graph message with an id')];
    for (const body of sent) expect((await classify(pair.classify, token, body)).status).toBe(200);
    expect((await classify(pair.classify, token, email())).status).toBe(429);
    // The store is read before the budget.
    for (const body of sent) {
      for (const app of [pair.classify, second]) {
        const again = await classify(app, token, body);
        expect(again.status, again.text).toBe(200);
        expect(again.body.dedupe.status).toBe('duplicate');
      }
    }
    expect((await classify(second, token, email())).status).toBe(429);
    expect(
      (await classify(pair.classify, token, graph(`budget-new-${kind}-${Date.now()}`, 'another message'))).status,
    ).toBe(429);
  });

  it('is per token', async () => {
    const a = await mintToken(pair.work, { role: 'intake', name: 'a' });
    const b = await mintToken(pair.work, { role: 'intake', name: 'b' });
    for (let i = 0; i < LIMIT; i += 1) expect((await classify(pair.classify, a.token, email())).status).toBe(200);
    expect((await classify(pair.classify, a.token, email())).status).toBe(429);
    expect((await classify(pair.classify, b.token, email())).status).toBe(200);
  });

  it('is shared by every instance', async () => {
    const { token } = await mintToken(pair.work, { role: 'intake', name: 'spread' });
    expect((await classify(pair.classify, token, email())).status).toBe(200);
    expect((await classify(second, token, email())).status).toBe(200);
    expect((await classify(pair.classify, token, email())).status).toBe(200);
    expect((await classify(second, token, email())).status).toBe(429);
    expect((await classify(pair.classify, token, email())).status).toBe(429);
  });

  it('holds when a burst arrives at once', async () => {
    const { token } = await mintToken(pair.work, { role: 'intake', name: 'burst' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => classify(i % 2 === 0 ? pair.classify : second, token, email())),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(LIMIT).fill(200), ...Array(10 - LIMIT).fill(429)]);
  });

  it('reaches the browser through the work service proxy, Retry-After included', async () => {
    const { token } = await mintToken(pair.work, { role: 'intake', name: 'proxied' });
    for (let i = 0; i < LIMIT; i += 1) {
      expect((await call(pair.work, 'POST', '/ui-api/classify', email(), bearer(token))).status).toBe(200);
    }
    const over = await call(pair.work, 'POST', '/ui-api/classify', email(), bearer(token));
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  });
});
