import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { FAKE_ANSWER, type FakeLlm, type FakeReply, createLatch, startFakeLlm } from '../support/fake-llm.js';
import { startClassifyApp, openAiFake } from '../support/classify-app.js';
import { type AuthPair, bearer, mintToken, startAuthPair } from '../support/auth.js';

// Bursts: per caller, LLM_CONCURRENCY provider calls in flight and LLM_QUEUE waiting,
// a 429 with Retry-After past that, and LLM_TOTAL_CONCURRENCY calls in flight in all. The fake
// provider holds its answers until the test lets them go, so what is in flight can be counted.

let counter = 0;
function freshEmail(): Record<string, unknown> {
  counter += 1;
  const tag = `${counter}-${Date.now()}`;
  return {
    email_data: { subject: `Invoice ${tag}`, body: `Please pay invoice ${tag} by Friday.` },
    id: `limits-${tag}`,
  };
}

interface Reply {
  status: number;
  headers: Record<string, unknown>;
  body: any;
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error(`timed out waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: 10 },
  );
}

describe.each(await storesUnderTest())('provider call limits on %s', (kind) => {
  let fake: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    fake = await startFakeLlm();
    t = await startClassifyApp(kind, {
      ...openAiFake(fake),
      LLM_TIMEOUT_MS: '20000',
      LLM_MAX_RETRIES: '0',
      LLM_CONCURRENCY: '2',
      LLM_QUEUE: '3',
      LLM_TOTAL_CONCURRENCY: '3',
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  /** POST /classify from the given client address: the caller the limits are kept for. */
  async function classifyFrom(caller: string, email: unknown): Promise<Reply> {
    const response = await t.app.inject({
      method: 'POST',
      url: '/classify',
      remoteAddress: caller,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(email),
    });
    return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) };
  }

  it('holds a caller to LLM_CONCURRENCY calls and LLM_QUEUE waiting, refuses one more with 429 and Retry-After, and keeps callers apart', async () => {
    fake.requests.length = 0;
    const gate = createLatch();
    const held: FakeReply = { kind: 'held', latch: gate, then: { kind: 'answer' } };
    fake.script(...Array.from({ length: 8 }, () => held));

    // Caller A: two at the provider, three in line.
    const first = Array.from({ length: 5 }, () => classifyFrom('10.0.0.1', freshEmail()));
    await until(() => fake.requests.length === 2, 'two calls at the provider');

    // One more from A: its line is full.
    const refusedEmail = freshEmail();
    const refused = await classifyFrom('10.0.0.1', refusedEmail);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.body).toMatchObject({
      status: 429,
      title: 'Too Many Requests',
      type: expect.stringMatching(/too-many-requests$/),
    });
    expect(refused.body.detail).toMatch(/2 at the provider, 3 waiting/);
    expect(String(refused.headers['retry-after'])).toMatch(/^[1-9]\d*$/);

    // Caller B is not held up by A's line: it takes the last of the three process-wide slots.
    const secondEmail = freshEmail();
    const second = classifyFrom('10.0.0.2', secondEmail);
    await until(() => fake.requests.length === 3, 'the other caller at the provider');
    // The third call at the provider is B's: none of A's line slipped past its two.
    expect(JSON.stringify(fake.requests[2]!.body)).toContain(String(secondEmail.id).replace('limits-', ''));
    // Caller C has a free slot of its own but the process-wide cap is reached: it waits (the
    // provider's peak below, taken once all are answered, would show a fourth call while held).
    const third = classifyFrom('10.0.0.3', freshEmail());
    expect(fake.open()).toEqual({ now: 3, max: 3 });

    gate.open();
    const answers = await Promise.all([...first, second, third]);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        category: FAKE_ANSWER.category,
        confidence: FAKE_ANSWER.confidence,
        dedupe: { status: 'new' },
      });
    }
    expect(fake.requests.length).toBe(7);
    expect(fake.open().max).toBe(3);

    // The refused request left nothing behind: sent again, it is a new email, not a duplicate.
    const retried = await classifyFrom('10.0.0.1', refusedEmail);
    expect(retried.status).toBe(200);
    expect(retried.body.dedupe).toMatchObject({ status: 'new', seen_count: 1 });
  });

  it('a duplicate gives its place back: a caller can replay classified emails far beyond its line', async () => {
    const email = freshEmail();
    expect((await classifyFrom('10.0.0.4', email)).body.dedupe.status).toBe('new');
    // A place is held while dedupe decides (2 + 3 = 5 places here), then given back unused.
    for (let round = 0; round < 6; round += 1) {
      const replies = await Promise.all(Array.from({ length: 5 }, () => classifyFrom('10.0.0.4', email)));
      for (const reply of replies) {
        expect(reply.status).toBe(200);
        expect(reply.body.dedupe.status).toBe('duplicate');
      }
    }
    // None leaked: the whole line is still there for new emails.
    const fresh = await Promise.all(Array.from({ length: 5 }, () => classifyFrom('10.0.0.4', freshEmail())));
    expect(fresh.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
  });
});

describe.each(await storesUnderTest())('provider call limits with tokens on %s', (kind) => {
  let fake: FakeLlm;
  let pair: AuthPair;
  beforeAll(async () => {
    fake = await startFakeLlm();
    pair = await startAuthPair(kind, {
      ...openAiFake(fake),
      LLM_TIMEOUT_MS: '20000',
      LLM_MAX_RETRIES: '0',
      LLM_CONCURRENCY: '1',
      LLM_QUEUE: '0',
      LLM_TOTAL_CONCURRENCY: '10',
      CLASSIFY_RATE_LIMIT: '1000',
    });
  });
  afterAll(async () => {
    await pair?.close();
    await fake?.close();
  });

  async function classifyAs(token: string, address: string): Promise<Reply> {
    const response = await pair.classify.inject({
      method: 'POST',
      url: '/classify',
      remoteAddress: address,
      headers: { 'content-type': 'application/json', ...bearer(token) },
      payload: JSON.stringify(freshEmail()),
    });
    return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) };
  }

  it("the line is the token's, not the address's: one token from two addresses shares one, two tokens from one address have one each", async () => {
    const a = await mintToken(pair.work, { role: 'intake', name: 'mailroom-a' });
    const b = await mintToken(pair.work, { role: 'intake', name: 'mailroom-b' });
    fake.requests.length = 0;
    const gate = createLatch();
    const held: FakeReply = { kind: 'held', latch: gate, then: { kind: 'answer' } };
    fake.script(held, held, held);

    const first = classifyAs(a.token, '10.0.1.1');
    await until(() => fake.requests.length === 1, 'the first call at the provider');
    // Token a again, from another address: its one place is taken.
    const refused = await classifyAs(a.token, '10.0.1.2');
    expect(refused.status).toBe(429);
    expect(String(refused.headers['retry-after'])).toMatch(/^[1-9]\d*$/);
    // Token b from a's first address: a line of its own.
    const other = classifyAs(b.token, '10.0.1.1');
    await until(() => fake.requests.length === 2, 'the other token at the provider');

    gate.open();
    for (const answer of await Promise.all([first, other])) expect(answer.status).toBe(200);
  });
});
