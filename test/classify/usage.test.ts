import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClassifyApp } from '../../src/services/classify.js';
import { createDedupeStore } from '../../src/classify/dedupe/store/index.js';
import type { ProviderCall } from '../../src/classify/usage/records.js';
import { ConfigError, DEFAULT_PRICES, loadConfig } from '../../src/shared/config/config.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { buildWorkApp } from '../../src/services/work.js';
import { type TestApp, captureLogs, startTestApp, testConfig } from '../support/apps.js';
import { SERVER_KEY, testResolver } from '../support/classify-app.js';
import { storesUnderTest } from '../support/databases.js';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';

// Every provider call is recorded with its tokens, attempts, latency and outcome,
// beside the dedupe record and without the email; GET /classify/usage (and the work service's
// /ui-api/classify-usage) sums it per day or per model and prices it.

const folder = mkdtempSync(join(tmpdir(), 'agentdesk-prices-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
function pricesFile(content: string): string {
  const path = join(folder, `prices-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, content);
  return path;
}
const PRICED = { 'priced-model': { input_per_million: 2, output_per_million: 8 } };

let counter = 0;
function freshEmail(patch: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  const stamp = `${counter}-${Date.now()}`;
  return {
    email_data: { subject: `Invoice ${stamp}`, body: `Please pay invoice ${stamp} by Friday.` },
    id: `msg-${stamp}`,
    ...patch,
  };
}

function startUsageApp(kind: 'sqlite' | 'postgres', env: Record<string, string>): Promise<TestApp> {
  return startTestApp(
    kind,
    { LLM_API_KEY: SERVER_KEY, LLM_TIMEOUT_MS: '2000', LLM_MAX_RETRIES: '2', ...env },
    captureLogs('info'),
    (parts) =>
      buildClassifyApp({
        ...parts,
        resolveHost: testResolver,
        backoff: { base_delay_ms: 5, max_delay_ms: 20, retry_after_cap_ms: 50 },
      }),
  );
}

const usage = async (app: HttpApp, query = 'group_by=model', path = '/classify/usage') => {
  const response = await call(app, 'GET', `${path}?${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
};

function call_(patch: Partial<ProviderCall>): ProviderCall {
  return {
    provider: 'openai',
    model: 'priced-model',
    input_tokens: 0,
    output_tokens: 0,
    latency_ms: 5,
    attempts: 1,
    result: 'ok',
    ...patch,
  };
}

describe.each(await storesUnderTest())('LLM usage on %s', (kind) => {
  describe.each(['openai', 'anthropic'] as const)('through the %s wire format', (provider) => {
    let fake: FakeLlm;
    let t: TestApp;
    beforeAll(async () => {
      fake = await startFakeLlm();
      t = await startUsageApp(kind, {
        LLM_PROVIDER: provider,
        LLM_BASE_URL: provider === 'openai' ? fake.openaiBaseUrl : fake.url,
        LLM_PRICES: pricesFile(JSON.stringify(PRICED)),
        LLM_MODEL: 'priced-model',
      });
    });
    afterAll(async () => {
      await t?.close();
      await fake?.close();
    });

    it("totals equal the fake provider's own count of calls and tokens, retries and rejected answers included", async () => {
      const classify = (body: unknown) => call(t.app, 'POST', '/classify', body);
      for (let i = 0; i < 3; i += 1) expect((await classify(freshEmail())).status).toBe(200);
      // A 500 then an answer: two requests, one classification.
      fake.script({ kind: 'status', status: 500 }, { kind: 'answer' });
      expect((await classify(freshEmail())).body.category).toBe('action_required');
      // An answer that fails the schema was billed all the same; the retry answers.
      fake.script({ kind: 'malformed_answer' }, { kind: 'answer' });
      expect((await classify(freshEmail())).body.category).toBe('action_required');

      const served = fake.usage();
      expect(served.requests).toBe(7);
      const report = await usage(t.app);
      expect(report.totals).toMatchObject({
        calls: served.requests,
        input_tokens: served.input_tokens,
        output_tokens: served.output_tokens,
        duplicates_served: 0,
        fallbacks: 0,
        unpriced_calls: 0,
      });
      expect(report.rows).toEqual([
        { provider, model: 'priced-model', ...report.totals, estimated_cost: report.totals.estimated_cost },
      ]);
      // The price table applies: tokens × price per million.
      const expected = (served.input_tokens * 2 + served.output_tokens * 8) / 1e6;
      expect(report.totals.estimated_cost).toBeCloseTo(expected, 6);
      expect(report.currency).toBe('USD');

      // Each call's own row: attempts and outcome, the tokens adding up to the same totals.
      const calls = (await t.database.kysely.selectFrom('llm_calls').selectAll().orderBy('id').execute()) as Array<{
        attempts: number;
        result: string;
        input_tokens: number;
        latency_ms: number;
      }>;
      expect(calls.map((row) => [row.attempts, row.result])).toEqual([
        [1, 'ok'],
        [1, 'ok'],
        [1, 'ok'],
        [2, 'ok'],
        [2, 'ok'],
      ]);
      expect(calls.reduce((sum, row) => sum + Number(row.input_tokens), 0)).toBe(served.input_tokens);
      expect(calls.every((row) => Number(row.latency_ms) >= 0)).toBe(true);
    });

    it('counts duplicates served from the dedupe store and fallbacks, and the fake sees no call for a duplicate', async () => {
      const before = (await usage(t.app)).totals;
      const requestsBefore = fake.usage().requests;
      const email = freshEmail({ conversationId: `conv-${counter}` });
      expect((await call(t.app, 'POST', '/classify', email)).body.dedupe.status).toBe('new');
      // The same message again (its own record), then the same content under another id (a second record).
      expect((await call(t.app, 'POST', '/classify', email)).body.dedupe.status).toBe('duplicate');
      const copy = {
        ...email,
        id: `${email.id as string}-copy`,
        conversationId: `${email.conversationId as string}-copy`,
      };
      expect((await call(t.app, 'POST', '/classify', copy)).body.dedupe).toMatchObject({
        status: 'duplicate',
        matched_on: 'fingerprint',
      });
      // Every attempt fails: the fallback answer, three requests.
      fake.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'status', status: 500 });
      expect((await call(t.app, 'POST', '/classify', freshEmail())).body.category).toBe('uncategorized');

      expect(fake.usage().requests - requestsBefore).toBe(4);
      const after = (await usage(t.app)).totals;
      expect(after.calls - before.calls).toBe(4);
      expect(after.duplicates_served - before.duplicates_served).toBe(2);
      expect(after.fallbacks - before.fallbacks).toBe(1);
      const failed = await t.database.kysely
        .selectFrom('llm_calls')
        .select(['attempts', 'result', 'input_tokens'])
        .where('result', '!=', 'ok')
        .execute();
      expect(failed).toEqual([{ attempts: 3, result: 'provider_error', input_tokens: 0 }]);
    });
  });

  describe('prices, days and the window', () => {
    let fake: FakeLlm;
    let t: TestApp;
    let work: HttpApp;
    beforeAll(async () => {
      fake = await startFakeLlm();
      t = await startUsageApp(kind, {
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: fake.openaiBaseUrl,
        LLM_PRICES: pricesFile(JSON.stringify(PRICED)),
        LLM_MODEL: 'priced-model',
      });
      // The work service on the same database, as `npm start` runs them.
      work = await buildWorkApp({
        config: testConfig(t.testDatabase, { LLM_PRICES: pricesFile(JSON.stringify(PRICED)) }),
        database: t.database,
        logger: t.logs.logger,
        webRoot: null,
      });
      await work.ready();
    });
    afterAll(async () => {
      await work?.close();
      await t?.close();
      await fake?.close();
    });

    it('an unknown model shows its tokens with no cost; totals price what they can and count the rest', async () => {
      fake.resetUsage();
      await call(t.app, 'POST', '/classify', freshEmail());
      const priced = fake.usage();
      await call(t.app, 'POST', '/classify', { ...freshEmail(), model: 'mystery-model' });
      await call(t.app, 'POST', '/classify', { ...freshEmail(), model: 'mystery-model' });
      const all = fake.usage();
      const mystery = {
        input: all.input_tokens - priced.input_tokens,
        output: all.output_tokens - priced.output_tokens,
      };

      const report = await usage(t.app);
      const rows = Object.fromEntries(report.rows.map((row: { model: string }) => [row.model, row]));
      expect(rows['mystery-model']).toMatchObject({
        provider: 'openai',
        calls: 2,
        input_tokens: mystery.input,
        output_tokens: mystery.output,
        estimated_cost: null,
        unpriced_calls: 2,
      });
      const pricedCost = (priced.input_tokens * 2 + priced.output_tokens * 8) / 1e6;
      expect(rows['priced-model']).toMatchObject({ calls: 1, unpriced_calls: 0 });
      expect(rows['priced-model'].estimated_cost).toBeCloseTo(pricedCost, 6);
      expect(report.totals).toMatchObject({
        calls: 3,
        input_tokens: all.input_tokens,
        output_tokens: all.output_tokens,
        unpriced_calls: 2,
      });
      expect(report.totals.estimated_cost).toBeCloseTo(pricedCost, 6);
      // The work service answers the same from the same tables, for the UI.
      expect(await usage(work, 'group_by=model', '/ui-api/classify-usage')).toEqual({
        ...report,
        until: expect.any(String),
      });
    });

    it('group_by=day gives every UTC day of the window, zeros included; hours outside it do not count', async () => {
      const store = createDedupeStore(t.database);
      const record = (at: string, patch: Partial<ProviderCall>) =>
        store.recordUsage({ kind: 'call', at, call: call_(patch) });
      await record('2020-03-01T23:30:00.000Z', { input_tokens: 1_000 });
      await record('2020-03-02T00:10:00.000Z', { input_tokens: 100, output_tokens: 10 });
      await record('2020-03-02T17:45:00.000Z', {
        input_tokens: 200,
        output_tokens: 20,
        attempts: 3,
        result: 'timeout',
      });
      await record('2020-03-04T11:59:00.000Z', { input_tokens: 400, output_tokens: 40, model: 'mystery-model' });
      await record('2020-03-04T12:00:00.000Z', { input_tokens: 5_000 });
      await store.recordUsage({
        kind: 'duplicate',
        at: '2020-03-04T08:00:00.000Z',
        provider: 'openai',
        model: 'priced-model',
      });
      await store.recordUsage({
        kind: 'call',
        at: '2020-03-02T09:00:00.000Z',
        call: call_({ provider: 'rules', model: 'rules-v3' }),
      });

      const report = await usage(t.app, 'group_by=day&since=2020-03-02T00:00:00Z&until=2020-03-04T12:00:00Z');
      expect(report).toMatchObject({
        since: '2020-03-02T00:00:00.000Z',
        until: '2020-03-04T12:00:00.000Z',
        group_by: 'day',
        currency: 'USD',
      });
      const zero = {
        calls: 0,
        input_tokens: 0,
        output_tokens: 0,
        duplicates_served: 0,
        fallbacks: 0,
        estimated_cost: 0,
        unpriced_calls: 0,
      };
      expect(report.rows).toEqual([
        {
          day: '2020-03-02',
          calls: 5,
          input_tokens: 300,
          output_tokens: 30,
          duplicates_served: 0,
          fallbacks: 1,
          estimated_cost: (300 * 2 + 30 * 8) / 1e6,
          unpriced_calls: 0,
        },
        { day: '2020-03-03', ...zero },
        {
          day: '2020-03-04',
          ...zero,
          calls: 1,
          input_tokens: 400,
          output_tokens: 40,
          duplicates_served: 1,
          unpriced_calls: 1,
        },
      ]);
      expect(report.totals).toEqual({
        calls: 6,
        input_tokens: 700,
        output_tokens: 70,
        duplicates_served: 1,
        fallbacks: 1,
        estimated_cost: (300 * 2 + 30 * 8) / 1e6,
        unpriced_calls: 1,
      });
      // The rules classifier is priced at nothing, whatever the table says.
      const byModel = await usage(t.app, 'group_by=model&since=2020-03-02T00:00:00Z&until=2020-03-03T00:00:00Z');
      expect(byModel.rows.find((row: { provider: string }) => row.provider === 'rules')).toMatchObject({
        calls: 1,
        estimated_cost: 0,
        unpriced_calls: 0,
      });
      // An hour counts when it overlaps the window: since 17:30 still takes the 17:00 hour.
      expect(
        (await usage(t.app, 'group_by=model&since=2020-03-02T17:30:00Z&until=2020-03-02T18:00:00Z')).totals,
      ).toMatchObject({ calls: 3, input_tokens: 200 });
      expect(
        (await usage(t.app, 'group_by=model&since=2020-03-02T18:00:00Z&until=2020-03-03T00:00:00Z')).totals.calls,
      ).toBe(0);
    });

    it('defaults to today and the six days before it, one row each', async () => {
      const report = await usage(t.app, '');
      expect(report.group_by).toBe('day');
      expect(report.rows).toHaveLength(7);
      const today = new Date().toISOString().slice(0, 10);
      expect(report.rows.at(-1).day).toBe(today);
      expect(report.since).toBe(`${report.rows[0].day}T00:00:00.000Z`);
      expect(report.totals.calls).toBeGreaterThan(0);
    });

    it.each([
      ['since=yesterday', 'since'],
      ['until=2026-13-01T00:00:00Z', 'until'],
      ['group_by=week', 'group_by'],
      ['since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'since'],
      ['group_by=day&since=2020-01-01T00:00:00Z&until=2026-01-01T00:00:00Z', 'since'],
      ['since=1969-12-31T00:00:00Z', 'since'],
    ])('refuses %s with a 422 problem naming %s', async (query, field) => {
      for (const app of [t.app, work]) {
        const response = await call(
          app,
          'GET',
          `${app === work ? '/ui-api/classify-usage' : '/classify/usage'}?${query}`,
        );
        expect(response.status).toBe(422);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(JSON.stringify(response.body.errors)).toContain(field);
      }
    });

    it('keeps nothing of the email in the usage tables', async () => {
      const secret = `Zanzibar-${Date.now()}`;
      const email = {
        subject: `Quarterly ${secret} subject`,
        body: { contentType: 'text', content: `The ${secret} body text.` },
        from: { emailAddress: { name: 'Olga Secretary', address: `olga.${secret}@example.com` } },
        internetMessageId: `<${secret}@example.com>`,
        conversationId: `conv-${secret}`,
      };
      const response = await call(t.app, 'POST', '/classify', email);
      expect(response.status).toBe(200);
      const { fingerprint } = response.body.dedupe;
      const rows = JSON.stringify([
        await t.database.kysely.selectFrom('llm_calls').selectAll().execute(),
        await t.database.kysely.selectFrom('llm_usage_hourly').selectAll().execute(),
      ]);
      for (const needle of [secret, 'Olga', 'Quarterly', fingerprint, 'conv-', '@example.com'])
        expect(rows).not.toContain(needle);
      // While the dedupe record does hold it: this is the right email.
      const stored = JSON.stringify(await t.database.kysely.selectFrom('classify_messages').selectAll().execute());
      expect(stored).toContain(fingerprint);
    });

    it('purging expired dedupe records drops the per-call rows and keeps the hourly totals (cost history)', async () => {
      const before = await usage(t.app, 'group_by=model&since=2020-01-01T00:00:00Z');
      expect(before.totals.calls).toBeGreaterThan(0);
      const removed = await createDedupeStore(t.database).purgeBefore('2999-01-01T00:00:00.000Z');
      expect(removed).toBeGreaterThan(0);
      expect(await t.database.kysely.selectFrom('llm_calls').selectAll().execute()).toEqual([]);
      expect(await usage(t.app, 'group_by=model&since=2020-01-01T00:00:00Z')).toEqual({
        ...before,
        until: expect.any(String),
      });
    });
  });

  describe('with the rules provider', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startUsageApp(kind, { LLM_PROVIDER: 'rules', LLM_API_KEY: '' });
    });
    afterAll(() => t?.close());

    it('counts offline classifications at no cost', async () => {
      await call(t.app, 'POST', '/classify', freshEmail());
      await call(t.app, 'POST', '/classify', freshEmail());
      const report = await usage(t.app);
      expect(report.rows).toEqual([
        {
          provider: 'rules',
          model: 'rules-v3',
          calls: 2,
          input_tokens: 0,
          output_tokens: 0,
          duplicates_served: 0,
          fallbacks: 0,
          estimated_cost: 0,
          unpriced_calls: 0,
        },
      ]);
    });
  });
});

describe('LLM_PRICES', () => {
  const load = (path: string) => loadConfig({ LLM_PRICES: path });

  it('lays the file over the built-in prices of the default models', () => {
    const prices = load(
      pricesFile(JSON.stringify({ ...PRICED, 'gpt-4.1-mini': { input_per_million: 0.1, output_per_million: 0.2 } })),
    ).llm.prices;
    expect(prices['priced-model']).toEqual(PRICED['priced-model']);
    expect(prices['gpt-4.1-mini']).toEqual({ input_per_million: 0.1, output_per_million: 0.2 });
    expect(prices['claude-haiku-4-5']).toEqual(DEFAULT_PRICES['claude-haiku-4-5']);
    expect(loadConfig({}).llm.prices).toEqual(DEFAULT_PRICES);
  });

  it.each([
    ['a missing file', join(folder, 'nowhere.json'), /LLM_PRICES: cannot read .*nowhere\.json \(ENOENT\)/],
    [
      'text that is not JSON',
      pricesFile('OPENAI_API_KEY=sk-live-secret-123'),
      /LLM_PRICES: .* is not valid JSON; expected \{/,
    ],
    ['an array', pricesFile('[1, 2]'), /must hold one JSON object/],
    [
      'a price that is not a number',
      pricesFile(JSON.stringify({ m: { input_per_million: 'sk-live-secret-123', output_per_million: 1 } })),
      /model "m": input_per_million must be a number/,
    ],
    [
      'a negative price',
      pricesFile(JSON.stringify({ m: { input_per_million: 1, output_per_million: -1 } })),
      /model "m": output_per_million must be a number/,
    ],
    [
      'a missing field',
      pricesFile(JSON.stringify({ m: { input_per_million: 1 } })),
      /output_per_million must be a number/,
    ],
    [
      'an unknown field',
      pricesFile(JSON.stringify({ m: { input_per_million: 1, output_per_million: 1, api_key: 'sk-live-secret-123' } })),
      /exactly input_per_million and output_per_million/,
    ],
  ])('refuses %s at start-up, naming the problem and never a value', (_name, path, message) => {
    let error: unknown;
    try {
      load(path);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('sk-live-secret-123');
  });

  it('a model named like an Object property is just a name', () => {
    const prices = load(pricesFile('{"__proto__": {"input_per_million": 1, "output_per_million": 1}}')).llm.prices;
    expect(Object.hasOwn(prices, '__proto__')).toBe(true);
    expect(Object.hasOwn(prices, 'constructor')).toBe(false);
  });
});
