import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { FAKE_ANSWER, type FakeLlm, createLatch, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { startClassifyApp, openAiFake } from '../support/classify-app.js';

// Races between requests for one message, ordered by holding the fake provider's answers
// until the test lets them go: no sleeps decide who wins.

const V1_ANSWER = { ...FAKE_ANSWER, task_description: 'Answer for content v1' };
const V2_ANSWER = {
  ...FAKE_ANSWER,
  category: 'fyi',
  needs_action: false,
  task_description: null,
  reasoning: 'Answer for content v2.',
};

let counter = 0;
function message(version: 'v1' | 'v2', key: string): Record<string, unknown> {
  const body = version === 'v1' ? 'Please approve the budget by Friday.' : 'The budget was approved, nothing to do.';
  return { email_data: { subject: `Budget ${key}`, body }, id: key, conversationId: `conv-${key}` };
}
function freshKey(): string {
  counter += 1;
  return `race-${counter}-${Date.now()}`;
}

describe.each(await storesUnderTest())('dedupe races on %s', (kind) => {
  let fake: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    fake = await startFakeLlm();
    t = await startClassifyApp(kind, {
      ...openAiFake(fake),
      // Long enough that a held answer never times out; the deadline is then 2 s × 1 + 5 s.
      LLM_TIMEOUT_MS: '2000',
      LLM_MAX_RETRIES: '0',
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  afterEach(() => {
    fake.requests.length = 0;
  });
  const classify = (body: unknown) => call(t.app, 'POST', '/classify', body);

  /** Resolves once the thread has been counted `count` times: that request has made its decision. */
  async function threadSeen(conversationId: string, count: number): Promise<void> {
    await expect
      .poll(
        async () => {
          const rows = await t.database.kysely
            .selectFrom('classify_threads')
            .select(['thread_key', 'seen_count'])
            .where('thread_key', 'like', `%conv:${conversationId}`)
            .execute();
          return rows.some((row) => Number(row.seen_count) >= count);
        },
        { interval: 10, timeout: 10_000 },
      )
      .toBe(true);
  }

  it('an older answer never overwrites a newer one: the duplicate of v2 gets v2’s answer', async () => {
    const key = freshKey();
    const held = createLatch();
    fake.script(
      { kind: 'held', latch: held, then: { kind: 'answer', answer: V1_ANSWER } },
      { kind: 'answer', answer: V2_ANSWER },
    );
    const first = classify(message('v1', key));
    await held.reached;
    const second = await classify(message('v2', key));
    expect(second.body).toMatchObject({ category: 'fyi', dedupe: { status: 'updated', matched_on: 'id' } });
    held.open();
    expect((await first).body.task_description).toBe('Answer for content v1');

    const again = await classify(message('v2', key));
    expect(again.body).toMatchObject({
      category: 'fyi',
      reasoning: 'Answer for content v2.',
      dedupe: { status: 'duplicate', matched_on: 'id' },
    });
    expect(fake.requests).toHaveLength(2);
  });

  it('the older request’s clean-up leaves the newer one in flight: its duplicate waits for v2’s answer', async () => {
    const key = freshKey();
    const heldV1 = createLatch();
    const heldV2 = createLatch();
    fake.script(
      { kind: 'held', latch: heldV1, then: { kind: 'answer', answer: V1_ANSWER } },
      { kind: 'held', latch: heldV2, then: { kind: 'answer', answer: V2_ANSWER } },
    );
    const first = classify(message('v1', key));
    await heldV1.reached;
    const second = classify(message('v2', key));
    await heldV2.reached;
    heldV1.open();
    await first;
    // v2 is still being classified; its duplicate must wait for that answer, not take v1's.
    const duplicate = classify(message('v2', key));
    await threadSeen(`conv-${key}`, 3);
    heldV2.open();
    const [secondResult, duplicateResult] = await Promise.all([second, duplicate]);
    expect(secondResult.body.category).toBe('fyi');
    expect(duplicateResult.body).toMatchObject({
      category: 'fyi',
      reasoning: 'Answer for content v2.',
      dedupe: { status: 'duplicate', matched_on: 'id' },
    });
    expect(fake.requests).toHaveLength(2);
  });

  it('a copy of content its first owner no longer holds gets an answer for its own content', async () => {
    const owner = freshKey();
    fake.script(
      { kind: 'answer', answer: V1_ANSWER },
      { kind: 'answer', answer: V2_ANSWER },
      { kind: 'answer', answer: V1_ANSWER },
    );
    const v1 = message('v1', owner);
    await classify(v1);
    // The owner of v1's fingerprint is updated to v2: its stored answer is v2's now.
    expect((await classify(message('v2', owner))).body.category).toBe('fyi');
    const copy = await classify({ ...v1, id: `${owner}-copy`, conversationId: `conv-${owner}-copy` });
    expect(copy.body).toMatchObject({
      task_description: 'Answer for content v1',
      dedupe: { status: 'duplicate', matched_on: 'fingerprint' },
    });
    // The copy owns v1's content now, so the next copy reuses its answer.
    const next = await classify({ ...v1, id: `${owner}-next`, conversationId: `conv-${owner}-next` });
    expect(next.body).toMatchObject({
      task_description: 'Answer for content v1',
      dedupe: { status: 'duplicate', matched_on: 'fingerprint' },
    });
    expect(fake.requests).toHaveLength(3);
  });

  it('a fingerprint duplicate that reclaims a failed original answers for the original too', async () => {
    const original = freshKey();
    const email = message('v1', original);
    fake.script({ kind: 'status', status: 400 });
    const failed = await classify(email);
    expect(failed.body.category).toBe('uncategorized');

    // Same content under another id: a fingerprint match on the failed original, classified again.
    const copy = await classify({ ...email, id: `${original}-copy`, conversationId: `conv-${original}-copy` });
    expect(copy.body).toMatchObject({
      category: 'action_required',
      dedupe: { status: 'duplicate', matched_on: 'fingerprint' },
    });

    // The original is answered now: its next duplicate neither waits out a deadline nor asks again.
    const started = performance.now();
    const retried = await classify(email);
    const ms = performance.now() - started;
    expect(retried.body).toMatchObject({
      category: 'action_required',
      dedupe: { status: 'duplicate', matched_on: 'id' },
    });
    expect(fake.requests).toHaveLength(2);
    expect(ms).toBeLessThan(4_000);
  });
});
