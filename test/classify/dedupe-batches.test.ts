import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { openAiFake, startClassifyApp } from '../support/classify-app.js';

// Many requests at once: on PostgreSQL the claims (and the answers' writes) that arrive
// together share one statement, so these check that a batch gives every request the verdict,
// the count and the usage it would get alone, and that requests sharing a thread, a record or
// a content are still decided one after the other.

let counter = 0;
function email(key: string, conversation = `conv-${key}`): Record<string, unknown> {
  return {
    email_data: { subject: `Review ${key}`, body: `Please review item ${key} by Friday.` },
    id: key,
    conversationId: conversation,
  };
}
function freshKeys(count: number): string[] {
  counter += 1;
  return Array.from({ length: count }, (_, index) => `batch-${counter}-${index}-${Date.now()}`);
}

describe.each(await storesUnderTest())('dedupe under concurrent requests on %s', (kind) => {
  let fake: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    fake = await startFakeLlm();
    t = await startClassifyApp(kind, { ...openAiFake(fake), LLM_TIMEOUT_MS: '2000', LLM_MAX_RETRIES: '0' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  afterEach(() => {
    fake.requests.length = 0;
  });
  const classify = (body: unknown) => call(t.app, 'POST', '/classify', body);
  const usageTotals = async () => {
    const rows = await t.database.kysely
      .selectFrom('llm_usage_hourly')
      .select(['calls', 'duplicates_served'])
      .execute();
    return rows.reduce<{ calls: number; duplicates_served: number }>(
      (sum, row) => ({
        calls: sum.calls + Number(row.calls),
        duplicates_served: sum.duplicates_served + Number(row.duplicates_served),
      }),
      { calls: 0, duplicates_served: 0 },
    );
  };

  it('twenty new emails at once are each new; sent again at once, each a duplicate served from the store', async () => {
    const keys = freshKeys(20);
    const before = await usageTotals();
    const first = await Promise.all(keys.map((key) => classify(email(key))));
    expect(first.map((response) => response.status)).toEqual(keys.map(() => 200));
    expect(first.map((response) => response.body.dedupe.status)).toEqual(keys.map(() => 'new'));
    expect(fake.requests).toHaveLength(20);

    const again = await Promise.all(keys.map((key) => classify(email(key))));
    expect(
      again.map((response) => [
        response.body.dedupe.status,
        response.body.dedupe.matched_on,
        response.body.dedupe.seen_count,
      ]),
    ).toEqual(keys.map(() => ['duplicate', 'id', 2]));
    expect(again.map((response) => response.body.category)).toEqual(first.map((response) => response.body.category));
    expect(fake.requests).toHaveLength(20);
    const after = await usageTotals();
    expect(after).toEqual({ calls: before.calls + 20, duplicates_served: before.duplicates_served + 20 });
  });

  it('one thread, one content under many ids, and one id many times, all at once: counted one by one, classified once each', async () => {
    const [thread, content, id] = freshKeys(3);
    const sameThread = Array.from({ length: 5 }, (_, index) => email(`${thread}-${index}`, `conv-${thread}`));
    const copy = email(content!);
    const sameContent = Array.from({ length: 5 }, (_, index) => ({
      ...copy,
      id: `${content}-${index}`,
      conversationId: `conv-${content}-${index}`,
    }));
    const sameId = Array.from({ length: 5 }, () => email(id!));
    const before = await usageTotals();
    const responses = await Promise.all([...sameThread, ...sameContent, ...sameId].map((body) => classify(body)));
    const dedupe = responses.map((response) => response.body.dedupe);

    const threadCounts = dedupe
      .slice(0, 5)
      .map((verdict) => verdict.seen_count)
      .sort((a, b) => a - b);
    expect(threadCounts).toEqual([1, 2, 3, 4, 5]);
    expect(dedupe.slice(0, 5).filter((verdict) => verdict.status === 'new')).toHaveLength(1);
    expect(
      dedupe.slice(0, 5).filter((verdict) => verdict.status === 'updated' && verdict.matched_on === 'conversation'),
    ).toHaveLength(4);

    expect(dedupe.slice(5, 10).filter((verdict) => verdict.status === 'new')).toHaveLength(1);
    expect(
      dedupe.slice(5, 10).filter((verdict) => verdict.status === 'duplicate' && verdict.matched_on === 'fingerprint'),
    ).toHaveLength(4);

    expect(
      dedupe
        .slice(10)
        .map((verdict) => verdict.seen_count)
        .sort((a, b) => a - b),
    ).toEqual([1, 2, 3, 4, 5]);
    expect(dedupe.slice(10).filter((verdict) => verdict.status === 'new')).toHaveLength(1);
    expect(
      dedupe.slice(10).filter((verdict) => verdict.status === 'duplicate' && verdict.matched_on === 'id'),
    ).toHaveLength(4);

    // Five classified in the thread, one for the content, one for the id; eight duplicates served.
    expect(fake.requests).toHaveLength(7);
    expect(await usageTotals()).toEqual({ calls: before.calls + 7, duplicates_served: before.duplicates_served + 8 });
  });
});
