import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { startClassifyApp } from '../support/classify-app.js';

// decideDedupe's rule that a content owned by the request's own record is no match (verdict.ts):
// the stores hand back the owner as they find it, so this is the one place that says so.

describe.each(await storesUnderTest())('a content owned by the record itself on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    // No key anywhere: the offline rules provider, so no fake is needed.
    t = await startClassifyApp(kind, {});
  });
  afterAll(() => t.close());

  it('an email whose record was forgotten but whose content row outlived it is new again, not its own duplicate', async () => {
    const email = {
      email_data: { subject: 'Outlived', body: 'Could you send the signed form back today?' },
      id: `outlived-${Date.now()}`,
    };
    const first = await call(t.app, 'POST', '/classify', email);
    expect(first.body.dedupe).toMatchObject({ status: 'new', matched_on: 'none' });
    // The record and its thread go (as a purge of older rows would); the content's row stays.
    const recordKey = `%/id:${email.id}`;
    await t.database.kysely.deleteFrom('classify_messages').where('record_key', 'like', recordKey).execute();
    await t.database.kysely
      .deleteFrom('classify_threads')
      .where('thread_key', 'like', `%/msg:id:${email.id}`)
      .execute();
    const owners = await t.database.kysely
      .selectFrom('classify_fingerprints')
      .select('record_key')
      .where('record_key', 'like', recordKey)
      .execute();
    expect(owners).toHaveLength(1);

    const again = await call(t.app, 'POST', '/classify', email);
    expect(again.status).toBe(200);
    expect(again.body.dedupe).toMatchObject({ status: 'new', matched_on: 'none', seen_count: 1 });
    expect(again.body.category).toBe(first.body.category);
  });
});
