import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/apps.js';
import { SERVER_KEY, startClassifyApp, openAiFake } from '../support/classify-app.js';
import { storesUnderTest } from '../support/databases.js';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { type Scrape, parsePrometheus } from '../support/prometheus.js';

// GET /metrics on the classification service, through the fake provider (a real HTTP server
// speaking each API): one series per provider, model and result; the tokens the fake reported;
// retries, fallbacks and duplicates served from the dedupe store.

let counter = 0;
function freshEmail(): Record<string, unknown> {
  counter += 1;
  return {
    email_data: { subject: `Invoice ${counter}`, body: `Please pay invoice ${counter} by Friday.` },
    id: `metrics-${counter}-${Date.now()}`,
  };
}

const MODEL = 'metrics-model';

describe.each(await storesUnderTest())('classify metrics on %s', (kind) => {
  let fake: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    fake = await startFakeLlm();
    t = await startClassifyApp(kind, {
      ...openAiFake(fake),
      LLM_MODEL: MODEL,
      LLM_TIMEOUT_MS: '500',
      LLM_MAX_RETRIES: '1',
    });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const scrape = async (): Promise<Scrape> => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode, response.body).toBe(200);
    return parsePrometheus(response.body);
  };
  const classify = async (body: unknown) => {
    const response = await call(t.app, 'POST', '/classify', body);
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const labels = { provider: 'openai', model: MODEL };
  const delta = (after: Scrape, before: Scrape, name: string, wanted: Record<string, string> = {}) =>
    after.sum(name, wanted) - before.sum(name, wanted);

  it('a classification is one ok provider call, with the tokens the fake reported and its latency', async () => {
    const before = await scrape();
    fake.script({ kind: 'answer', usage: { input_tokens: 321, output_tokens: 45 } });
    await classify(freshEmail());
    const after = await scrape();
    expect(delta(after, before, 'agentdesk_classify_provider_calls_total', { ...labels, kind: 'ok' })).toBe(1);
    expect(delta(after, before, 'agentdesk_classify_input_tokens_total', labels)).toBe(321);
    expect(delta(after, before, 'agentdesk_classify_output_tokens_total', labels)).toBe(45);
    expect(delta(after, before, 'agentdesk_classify_provider_duration_seconds_count', labels)).toBe(1);
    expect(delta(after, before, 'agentdesk_classify_provider_retries_total')).toBe(0);
    expect(delta(after, before, 'agentdesk_classify_fallbacks_total')).toBe(0);
    expect(
      delta(after, before, 'agentdesk_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/classify',
        status_code: '200',
      }),
    ).toBe(1);
  });

  it('a duplicate is served from the dedupe store: the duplicates counter moves, the provider calls do not', async () => {
    const email = freshEmail();
    await classify(email);
    const before = await scrape();
    const again = await classify(email);
    expect(again.dedupe.status).toBe('duplicate');
    const after = await scrape();
    expect(delta(after, before, 'agentdesk_classify_duplicates_served_total')).toBe(1);
    expect(delta(after, before, 'agentdesk_classify_provider_calls_total')).toBe(0);
    expect(fake.requests.length).toBeGreaterThan(0);
  });

  it('a retry that succeeds is one ok call with one retry; the tokens of every answered attempt count', async () => {
    const before = await scrape();
    fake.script({ kind: 'status', status: 500 }, { kind: 'answer', usage: { input_tokens: 100, output_tokens: 7 } });
    await classify(freshEmail());
    const after = await scrape();
    expect(delta(after, before, 'agentdesk_classify_provider_calls_total', { ...labels, kind: 'ok' })).toBe(1);
    expect(delta(after, before, 'agentdesk_classify_provider_retries_total', labels)).toBe(1);
    expect(delta(after, before, 'agentdesk_classify_input_tokens_total', labels)).toBe(100);
    expect(delta(after, before, 'agentdesk_classify_output_tokens_total', labels)).toBe(7);
  });

  it('a provider that keeps failing is one call of its failure kind and one fallback', async () => {
    const before = await scrape();
    fake.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const result = await classify(freshEmail());
    expect(result.confidence).toBe(0);
    const after = await scrape();
    expect(delta(after, before, 'agentdesk_classify_provider_calls_total', { ...labels, kind: 'provider_error' })).toBe(
      1,
    );
    expect(delta(after, before, 'agentdesk_classify_fallbacks_total', labels)).toBe(1);
    expect(delta(after, before, 'agentdesk_classify_provider_retries_total', labels)).toBe(1);
    expect(delta(after, before, 'agentdesk_classify_input_tokens_total')).toBe(0);
  });

  it('an answer that breaks the schema was still billed: its tokens count under invalid_answer', async () => {
    const before = await scrape();
    const bad = {
      kind: 'answer',
      answer: { category: 'not-a-category' },
      usage: { input_tokens: 50, output_tokens: 5 },
    } as const;
    fake.script(bad, bad);
    await classify(freshEmail());
    const after = await scrape();
    expect(delta(after, before, 'agentdesk_classify_provider_calls_total', { ...labels, kind: 'invalid_answer' })).toBe(
      1,
    );
    expect(delta(after, before, 'agentdesk_classify_input_tokens_total', labels)).toBe(100);
    expect(delta(after, before, 'agentdesk_classify_output_tokens_total', labels)).toBe(10);
  });

  it('the classifier reports the database too: on SQLite its transactions and group-commit batches, on PostgreSQL its pool', async () => {
    const m = await scrape();
    if (kind === 'sqlite') {
      expect(m.sum('agentdesk_db_transaction_duration_seconds_count')).toBeGreaterThan(0);
      expect(m.value('agentdesk_db_group_commit_batch_size_count')).toBeGreaterThan(0);
    } else {
      // Dedupe is one autocommit statement per batch there: no transaction to time, a pool to watch.
      expect(m.value('agentdesk_db_pool_max_connections')).toBe(5);
      expect(m.sum('agentdesk_db_pool_connections')).toBeGreaterThan(0);
      expect(m.value('agentdesk_db_pool_waiting_clients')).toBe(0);
    }
  });
});

describe('classify metrics with the Anthropic API', () => {
  it('reads usage.input_tokens and usage.output_tokens', async () => {
    const fake = await startFakeLlm();
    const t = await startClassifyApp('sqlite', {
      LLM_PROVIDER: 'anthropic',
      LLM_API_KEY: SERVER_KEY,
      LLM_BASE_URL: fake.url,
      LLM_MODEL: 'claude-metrics',
    });
    try {
      fake.script({ kind: 'answer', usage: { input_tokens: 900, output_tokens: 80 } });
      expect((await call(t.app, 'POST', '/classify', freshEmail())).status).toBe(200);
      const m = parsePrometheus((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
      const wanted = { provider: 'anthropic', model: 'claude-metrics' };
      expect(m.value('agentdesk_classify_provider_calls_total', { ...wanted, kind: 'ok' })).toBe(1);
      expect(m.value('agentdesk_classify_input_tokens_total', wanted)).toBe(900);
      expect(m.value('agentdesk_classify_output_tokens_total', wanted)).toBe(80);
    } finally {
      await t.close();
      await fake.close();
    }
  });

  it('the offline rules classifier counts as provider "rules", with no tokens', async () => {
    const t = await startClassifyApp('sqlite', { LLM_PROVIDER: 'rules' });
    try {
      expect((await call(t.app, 'POST', '/classify', freshEmail())).status).toBe(200);
      const m = parsePrometheus((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
      expect(m.sum('agentdesk_classify_provider_calls_total', { provider: 'rules', kind: 'ok' })).toBe(1);
      expect(m.sum('agentdesk_classify_input_tokens_total')).toBe(0);
    } finally {
      await t.close();
    }
  });
});
