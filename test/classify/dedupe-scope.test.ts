import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { FAKE_ANSWER, type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { CALLER_KEY, SERVER_KEY, startClassifyApp } from '../support/classify-app.js';

// Cache poisoning: dedupe must never hand one caller's model's answer to a request that did not
// ask for that provider, model and base URL. A caller's own model answers whatever it likes.
const POISON = {
  ...FAKE_ANSWER,
  task_description: 'Wire $48,000 to this IBAN today',
  reasoning: 'The CFO asks for an urgent transfer.',
  confidence: 0.99,
};

let counter = 0;
function freshEmail(): Record<string, unknown> {
  counter += 1;
  return {
    email_data: { subject: `Invoice ${counter} ${Date.now()}`, body: 'Please settle the attached invoice this week.' },
    id: `scope-${counter}-${Date.now()}`,
    conversationId: `scope-conv-${counter}-${Date.now()}`,
  };
}
function copyOf(email: Record<string, unknown>, suffix: string): Record<string, unknown> {
  return {
    ...email,
    id: `${email.id as string}-${suffix}`,
    conversationId: `${email.conversationId as string}-${suffix}`,
  };
}

describe.each(await storesUnderTest())('dedupe scope on %s', (kind) => {
  let serverFake: FakeLlm;
  let callerFake: FakeLlm;
  let classifier: TestApp;
  let work: TestApp;
  beforeAll(async () => {
    serverFake = await startFakeLlm();
    callerFake = await startFakeLlm();
    const env = {
      LLM_PROVIDER: 'openai',
      LLM_API_KEY: SERVER_KEY,
      LLM_BASE_URL: serverFake.openaiBaseUrl,
      LLM_MODEL: 'server-model',
      LLM_TIMEOUT_MS: '2000',
      LLM_MAX_RETRIES: '0',
      // The caller's fake listens on loopback, which a caller's base_url may name only when listed.
      LLM_ALLOWED_HOSTS: '127.0.0.1',
    };
    classifier = await startClassifyApp(kind, env);
    await classifier.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (classifier.app.server.address() as AddressInfo).port;
    work = await startWorkApp(kind, { ...env, CLASSIFY_URL: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await work.close();
    await classifier.close();
    await serverFake.close();
    await callerFake.close();
  });
  afterEach(() => {
    serverFake.requests.length = 0;
    callerFake.requests.length = 0;
  });
  const classify = (body: unknown) => call(classifier.app, 'POST', '/classify', body);
  const relay = (body: unknown) => call(work.app, 'POST', '/ui-api/classify', body);
  const callerEndpoint = () => ({ base_url: callerFake.openaiBaseUrl, api_key: CALLER_KEY });

  it("an answer from a caller's base_url and key is never served to a request without them", async () => {
    const email = freshEmail();
    callerFake.script({ kind: 'answer', answer: POISON });
    const poisoned = await classify({ ...email, ...callerEndpoint() });
    expect(poisoned.body.task_description).toBe(POISON.task_description);

    const sameContent = await classify(copyOf(email, 'copy'));
    expect(sameContent.body.task_description).toBe(FAKE_ANSWER.task_description);
    expect(sameContent.body.dedupe).toMatchObject({ status: 'new', matched_on: 'none' });
    expect(serverFake.requests).toHaveLength(1);

    // The caller's own id, resent without the overrides, is not the caller's answer either.
    const sameId = await classify(email);
    expect(sameId.body.task_description).toBe(FAKE_ANSWER.task_description);
    expect(sameId.body.confidence).toBe(FAKE_ANSWER.confidence);
  });

  it('a model override alone is its own scope, even on the server’s host and key', async () => {
    const email = freshEmail();
    serverFake.script({ kind: 'answer', answer: POISON });
    expect((await classify({ ...email, model: 'caller-model' })).body.task_description).toBe(POISON.task_description);
    const plain = await classify(copyOf(email, 'plain'));
    expect(plain.body.task_description).toBe(FAKE_ANSWER.task_description);
    expect(serverFake.requests.map((request) => request.body.model)).toEqual(['caller-model', 'server-model']);
  });

  it('requests with the same provider, model and base URL share answers', async () => {
    const email = freshEmail();
    await classify({ ...email, ...callerEndpoint() });
    const again = await classify({ ...copyOf(email, 'again'), ...callerEndpoint(), api_key: `${CALLER_KEY}-other` });
    expect(again.body.dedupe).toMatchObject({ status: 'duplicate', matched_on: 'fingerprint' });
    expect(callerFake.requests).toHaveLength(1);

    // Naming the server's own settings is the same scope as naming none.
    const other = freshEmail();
    await classify(other);
    const named = await classify({ ...copyOf(other, 'named'), provider: 'openai', model: 'server-model' });
    expect(named.body.dedupe).toMatchObject({ status: 'duplicate', matched_on: 'fingerprint' });
    expect(serverFake.requests).toHaveLength(1);
  });

  it('the same holds through the UI’s relay, /ui-api/classify', async () => {
    const email = freshEmail();
    callerFake.script({ kind: 'answer', answer: POISON });
    expect((await relay({ ...email, ...callerEndpoint() })).body.task_description).toBe(POISON.task_description);
    const plain = await relay(copyOf(email, 'ui'));
    expect(plain.status).toBe(200);
    expect(plain.body.task_description).toBe(FAKE_ANSWER.task_description);
    expect(plain.body.dedupe.status).toBe('new');
  });
});
