import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClassifyApp } from '../../src/services/classify.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { captureLogs, testConfig } from '../support/apps.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { SERVER_KEY } from '../support/classify-app.js';

// Two instances of the service on one database, each with its own connection: the claim on a
// new email is decided by the database, not by memory shared inside one process.
describe.each(await storesUnderTest())('two service instances on one %s database', (kind) => {
  let fake: FakeLlm;
  let testDatabase: TestDatabase;
  const databases: Database[] = [];
  const apps: HttpApp[] = [];
  beforeAll(async () => {
    fake = await startFakeLlm();
    testDatabase = await createTestDatabase(kind);
    const env = {
      LLM_PROVIDER: 'openai',
      LLM_API_KEY: SERVER_KEY,
      LLM_BASE_URL: fake.openaiBaseUrl,
      LLM_TIMEOUT_MS: '2000',
    };
    for (let index = 0; index < 2; index += 1) {
      const database = await openTestDatabase(testDatabase);
      const app = await buildClassifyApp({
        config: testConfig(testDatabase, env),
        database,
        logger: captureLogs('silent').logger,
      });
      await app.ready();
      databases.push(database);
      apps.push(app);
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const database of databases) await database.close();
    await testDatabase.destroy();
    await fake.close();
  });

  it('the same new email on both at once: one new, one duplicate that waits for the answer, one provider call', async () => {
    fake.script({ kind: 'delay', ms: 300, then: { kind: 'answer' } });
    const email = {
      email_data: { subject: 'Contract renewal', body: 'Please sign the renewal by Monday.' },
      id: 'two-instances-1',
      conversationId: 'two-instances',
    };
    const [first, second] = await Promise.all(apps.map((app) => call(app, 'POST', '/classify', email)));
    expect([first!.body.dedupe.status, second!.body.dedupe.status].sort()).toEqual(['duplicate', 'new']);
    expect(first!.body.category).toBe('action_required');
    expect(second!.body.category).toBe('action_required');
    expect(fake.requests).toHaveLength(1);
    expect(Math.max(first!.body.dedupe.seen_count, second!.body.dedupe.seen_count)).toBe(2);
  });

  it('many copies at once across both instances: exactly one is new', async () => {
    fake.script({ kind: 'delay', ms: 200, then: { kind: 'answer' } });
    fake.requests.length = 0;
    const email = {
      email_data: { subject: 'Burst', body: 'Could you confirm the burst test?' },
      id: 'burst-1',
      conversationId: 'burst',
    };
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, index) => call(apps[index % 2]!, 'POST', '/classify', email)),
    );
    const statuses = responses.map((response) => response.body.dedupe.status);
    expect(statuses.filter((status) => status === 'new')).toHaveLength(1);
    expect(statuses.filter((status) => status === 'duplicate')).toHaveLength(7);
    expect(responses.map((response) => response.body.dedupe.seen_count).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    expect(fake.requests).toHaveLength(1);
  });
});
