import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClassifyApp } from '../../src/services/classify.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { type TestApp, captureLogs, startWorkApp, testConfig } from '../support/apps.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';
import { type FakeLlm, createLatch, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { SERVER_KEY, startClassifyApp } from '../support/classify-app.js';

// The UI's Classify page goes through the work service to the real classification service
// (here on its offline rules provider), so the browser needs one origin only.
describe('POST /ui-api/classify', () => {
  let classify: TestApp;
  let work: TestApp;
  let unreachable: TestApp;

  beforeAll(async () => {
    classify = await startClassifyApp('sqlite', { LLM_PROVIDER: 'rules' });
    await classify.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (classify.app.server.address() as AddressInfo).port;
    work = await startWorkApp('sqlite', { CLASSIFY_URL: `http://127.0.0.1:${port}` });
    // Port 9 (discard) is closed on this machine: nothing answers there.
    unreachable = await startWorkApp('sqlite', { CLASSIFY_URL: 'http://127.0.0.1:9' });
  });
  afterAll(async () => {
    await work.close();
    await unreachable.close();
    await classify.close();
  });

  it('relays the classification of an email', async () => {
    const response = await call(work.app, 'POST', '/ui-api/classify', {
      email_data: {
        subject: 'Invoice INV-2231 due Friday',
        body: '<p>Hi, please pay invoice INV-2231 for $4,200 by Friday, Nov 27.</p><p>Thanks, Dana (Acme Billing)</p>',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      category: expect.any(String),
      needs_action: expect.any(Boolean),
      details: expect.objectContaining({ dedupe_key: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      dedupe: expect.objectContaining({ status: 'new', seen_count: 1 }),
    });
  });

  it('relays the service’s own 422 problem', async () => {
    const response = await call(work.app, 'POST', '/ui-api/classify', { email_data: 'not an object' });
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain('email_data');
  });

  it('is a 502 problem when the classification service cannot be reached', async () => {
    const response = await call(unreachable.app, 'POST', '/ui-api/classify', { email_data: { subject: 'hello' } });
    expect(response.status).toBe(502);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body.detail).toContain('127.0.0.1:9');
  });
});

// A classify request may wait one deadline for a duplicate in flight elsewhere and then classify
// for another: the relay must wait that long too, not answer 502 while the classification succeeds.
describe.each(await storesUnderTest())('POST /ui-api/classify outlives the classifier on %s', (kind) => {
  let fake: FakeLlm;
  let testDatabase: TestDatabase;
  const databases: Database[] = [];
  const classifiers: HttpApp[] = [];
  let work: TestApp;
  // One attempt of 300 ms: a classifier deadline of 5.3 s.
  const env = { LLM_PROVIDER: 'openai', LLM_API_KEY: SERVER_KEY, LLM_TIMEOUT_MS: '300', LLM_MAX_RETRIES: '0' };

  beforeAll(async () => {
    fake = await startFakeLlm();
    testDatabase = await createTestDatabase(kind);
    // Two instances on one database: a slow one that holds the email, and the one the relay uses.
    for (const timeout of ['30000', env.LLM_TIMEOUT_MS]) {
      const database = await openTestDatabase(testDatabase);
      const config = testConfig(testDatabase, { ...env, LLM_BASE_URL: fake.openaiBaseUrl, LLM_TIMEOUT_MS: timeout });
      const app = await buildClassifyApp({ config, database, logger: captureLogs('silent').logger });
      await app.ready();
      databases.push(database);
      classifiers.push(app);
    }
    await classifiers[1]!.listen({ host: '127.0.0.1', port: 0 });
    const port = (classifiers[1]!.server.address() as AddressInfo).port;
    work = await startWorkApp(kind, { ...env, CLASSIFY_URL: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await work.close();
    for (const app of classifiers) await app.close();
    for (const database of databases) await database.close();
    await testDatabase.destroy();
    await fake.close();
  });

  it('waits out a duplicate in flight on another instance, then the classification', async () => {
    const email = {
      email_data: { subject: 'Slow twin', body: 'Could you review the contract?' },
      id: `relay-${Date.now()}`,
      conversationId: null,
    };
    const held = createLatch();
    fake.script({ kind: 'held', latch: held, then: { kind: 'answer' } });
    const slow = call(classifiers[0]!, 'POST', '/classify', email);
    await held.reached;
    try {
      const relayed = await call(work.app, 'POST', '/ui-api/classify', email);
      expect(relayed.status).toBe(200);
      expect(relayed.body).toMatchObject({
        category: 'action_required',
        dedupe: { status: 'duplicate', matched_on: 'id' },
      });
    } finally {
      held.open();
      await slow;
    }
  });
});
