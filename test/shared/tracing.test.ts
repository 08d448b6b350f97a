import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ConfigError, loadConfig } from '../../src/shared/config/config.js';
import { SERVER_KEY, startClassifyApp, openAiFake } from '../support/classify-app.js';
import { storesUnderTest } from '../support/databases.js';
import { type FakeLlm, FAKE_ANSWER, startFakeLlm } from '../support/fake-llm.js';
import { type CollectedSpan, type FakeCollector, ancestorsOf, startFakeCollector } from '../support/fake-collector.js';

// Tracing on, pointed at a fake OTLP/HTTP collector: what each service exports, through HTTP
// against real servers and real databases. `close()` flushes the exporter.

const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
const DB_SYSTEM = { sqlite: 'sqlite', postgres: 'postgresql' } as const;

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

async function listen(t: TestApp): Promise<string> {
  return t.app.listen({ host: '127.0.0.1', port: 0 });
}

function only(spans: readonly CollectedSpan[], name: string): CollectedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(
    found.map((span) => span.name),
    `one span named ${name} in ${spans.map((span) => span.name).join(', ')}`,
  ).toEqual([name]);
  return found[0]!;
}

describe.each(await storesUnderTest())('tracing on %s', (kind) => {
  let collector: FakeCollector;
  let fake: FakeLlm;
  const open: TestApp[] = [];
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: '' };

  beforeEach(async () => {
    collector = await startFakeCollector();
    fake = await startFakeLlm();
    traced.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
    await collector.close();
    await fake.close();
  });

  async function closeAll(): Promise<void> {
    await Promise.all(open.splice(0).map((t) => t.close()));
  }

  it('a submitted work item: a server span for the route with HTTP attributes, and a database span under it', async () => {
    const t = await startWorkApp(kind, {
      ...traced,
      OTEL_SERVICE_NAME: 'desk-under-test',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=open%20sesame',
    });
    open.push(t);
    const base = await listen(t);
    const response = await fetch(`${base}/work`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'triage', description: 'trace this item' }),
    });
    expect(response.status).toBe(201);
    // A route that takes a query string (unknown parameters are refused everywhere).
    expect((await fetch(`${base}/work?limit=5`)).status).toBe(200);
    await closeAll();

    expect(collector.headers.every((headers) => headers['x-collector-token'] === 'open sesame')).toBe(true);
    const server = only(collector.spans, 'POST /work');
    expect(server.kind).toBe(SPAN_KIND.server);
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/work',
      'http.response.status_code': 201,
      'url.path': '/work',
    });
    // The path without its query string.
    expect(only(collector.spans, 'GET /work').attributes).toMatchObject({ 'http.route': '/work', 'url.path': '/work' });
    expect(server.resource['service.name']).toBe('desk-under-test');
    expect(server.resource['agentdesk.service']).toBe('work');

    const inRequest = collector.spans.filter((span) => ancestorsOf(span, collector.spans).includes(server));
    const names = inRequest.map((span) => span.name).join(', ');
    if (kind === 'postgres') {
      // One statement writes the item, its history and its event, straight through the pool;
      // it is named by operation and table, never by its SQL.
      const insert = inRequest.find((span) => span.name === 'INSERT work_items');
      expect(insert, names).toBeDefined();
      expect(insert!.attributes).toMatchObject({
        'db.system.name': 'postgresql',
        'db.operation.name': 'INSERT',
        'db.collection.name': 'work_items',
      });
    } else {
      const transaction = inRequest.find((span) => span.name === 'db.transaction');
      expect(transaction, names).toBeDefined();
      expect(transaction!.attributes['db.system.name']).toBe('sqlite');
      // SQLite runs the transaction inside a group-commit batch: one span for it, none for its parts.
      expect(collector.spans.filter((span) => ancestorsOf(span, collector.spans).includes(transaction!))).toEqual([]);
    }
    for (const span of collector.spans.filter((each) => each.attributes['db.system.name'] !== undefined)) {
      expect(span.attributes['db.query.text']).toBeUndefined();
    }
  });

  it('work started by timers (the lease sweeper, purges) makes no traces of its own', async () => {
    // The test runs the sweeps the timer would, outside any request, as the timer does.
    let sweep: () => Promise<number> = async () => 0;
    const t = await startWorkApp(kind, traced, { onLeaseSweeper: (run) => (sweep = run) });
    open.push(t);
    const base = await listen(t);
    for (let round = 0; round < 3; round += 1) await sweep();
    expect((await fetch(`${base}/health`)).status).toBe(200);
    await closeAll();
    expect(collector.spans.filter((span) => span.parentSpanId === null).map((span) => span.name)).toEqual([
      'GET /health',
    ]);
  });

  it('an incoming traceparent makes the request part of the caller’s trace', async () => {
    const t = await startWorkApp(kind, traced);
    open.push(t);
    const base = await listen(t);
    const traceId = hex(16);
    const parentId = hex(8);
    const response = await fetch(`${base}/work`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
    expect(response.status).toBe(200);
    await closeAll();

    const server = only(collector.spans, 'GET /work');
    expect(server.traceId).toBe(traceId);
    expect(server.parentSpanId).toBe(parentId);
  });

  it('a classification: a provider span with model, attempts and tokens, and nothing of the email or the key', async () => {
    const secret = hex(6);
    const subject = `Zebra invoice ${secret}`;
    const body = `Please wire the flamingo payment ${secret} before Friday.`;
    const t = await startClassifyApp(kind, {
      ...traced,
      ...openAiFake(fake),
      LLM_MODEL: 'trace-model',
      LLM_TIMEOUT_MS: '2000',
      LLM_MAX_RETRIES: '2',
    });
    open.push(t);
    const base = await listen(t);
    // One failed attempt, then an answer: two attempts, and the tokens of the one answered.
    fake.script({ kind: 'status', status: 500 }, { kind: 'answer' });
    fake.resetUsage();
    const response = await fetch(`${base}/classify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email_data: { subject, body }, id: `msg-${secret}`, conversationId: `conv-${secret}` }),
    });
    expect(response.status).toBe(200);
    expect(fake.requests).toHaveLength(2);
    await closeAll();

    const server = only(collector.spans, 'POST /classify');
    const call = only(collector.spans, 'llm.call');
    expect(ancestorsOf(call, collector.spans)).toContain(server);
    expect(call.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'trace-model',
      'agentdesk.llm.attempts': 2,
      'agentdesk.llm.result': 'ok',
      // What the fake billed for the one answer it gave.
      'gen_ai.usage.input_tokens': fake.usage('openai').input_tokens,
      'gen_ai.usage.output_tokens': fake.usage('openai').output_tokens,
      'server.address': new URL(fake.url).host,
    });
    expect(call.resource['service.name']).toBe('agentdesk-classify');
    // The database under the request: on SQLite the dedupe decision is a transaction (a span of
    // its own, its statements inside the group commit, not traced); on PostgreSQL it is batch
    // statements outside any transaction, each with a span of its own.
    const underServer = (span: (typeof collector.spans)[number]) => ancestorsOf(span, collector.spans).includes(server);
    const transactions = collector.spans.filter((span) => span.name === 'db.transaction' && underServer(span));
    if (kind === 'postgres') {
      const statements = collector.spans.filter(
        (span) => span.attributes['db.operation.name'] !== undefined && underServer(span),
      );
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.every((span) => span.attributes['db.system.name'] === 'postgresql')).toBe(true);
    } else {
      expect(transactions.length).toBeGreaterThan(0);
      expect(transactions.every((span) => span.attributes['db.system.name'] === DB_SYSTEM[kind])).toBe(true);
      const inTransactions = collector.spans.filter((span) =>
        ancestorsOf(span, collector.spans).some((parent) => transactions.includes(parent)),
      );
      expect(inTransactions).toEqual([]);
    }

    const exported = collector.bodies.join('\n');
    for (const forbidden of [
      secret,
      subject,
      body,
      SERVER_KEY,
      FAKE_ANSWER.task_description,
      FAKE_ANSWER.details.summary,
    ]) {
      expect(exported).not.toContain(forbidden);
    }
  });

  it('a provider that keeps failing: the span says how, and is marked failed', async () => {
    const t = await startClassifyApp(kind, {
      ...traced,
      LLM_PROVIDER: 'anthropic',
      LLM_API_KEY: SERVER_KEY,
      LLM_BASE_URL: fake.url,
      LLM_MODEL: 'trace-claude',
      LLM_TIMEOUT_MS: '2000',
      LLM_MAX_RETRIES: '1',
    });
    open.push(t);
    const base = await listen(t);
    fake.script({ kind: 'status', status: 429 }, { kind: 'status', status: 429 });
    const response = await fetch(`${base}/classify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email_data: { subject: 'Lunch?', body: 'Are you free at noon?' } }),
    });
    expect(response.status).toBe(200);
    // The SDK's own tracing is off: no traceparent goes to the provider.
    expect(fake.requests.every((request) => request.headers.traceparent === undefined)).toBe(true);
    await closeAll();

    const call = only(collector.spans, 'llm.call');
    expect(call.statusCode).toBe(2);
    expect(call.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'trace-claude',
      'agentdesk.llm.attempts': 2,
      'agentdesk.llm.result': 'rate_limit',
      'error.type': 'rate_limit',
    });
    // No attempt was answered, so nothing was billed (the same record the usage tables keep).
    expect(call.attributes['gen_ai.usage.input_tokens']).toBe(0);
    expect(call.attributes['gen_ai.usage.output_tokens']).toBe(0);
    // Only our own spans: the Anthropic SDK emits none of its own.
    expect(collector.spans.every((span) => !span.name.startsWith('messages'))).toBe(true);
  });
});

describe('tracing across the classify relay', () => {
  let collector: FakeCollector;
  let fake: FakeLlm;
  beforeEach(async () => {
    collector = await startFakeCollector();
    fake = await startFakeLlm();
  });
  afterEach(async () => {
    await collector.close();
    await fake.close();
  });

  it('the work service forwards traceparent, so the classifier’s spans join the same trace', async () => {
    const classify = await startClassifyApp('sqlite', {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      ...openAiFake(fake),
    });
    const classifyUrl = await classify.app.listen({ host: '127.0.0.1', port: 0 });
    const work = await startWorkApp('sqlite', {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      CLASSIFY_URL: classifyUrl,
    });
    try {
      const base = await listen(work);
      const response = await fetch(`${base}/ui-api/classify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email_data: { subject: 'Relay', body: 'Through the work service.' } }),
      });
      expect(response.status).toBe(200);
    } finally {
      await work.close();
      await classify.close();
    }

    const relay = only(collector.spans, 'POST /ui-api/classify');
    const classified = only(collector.spans, 'POST /classify');
    expect(relay.resource['agentdesk.service']).toBe('work');
    expect(classified.resource['agentdesk.service']).toBe('classify');
    expect(classified.traceId).toBe(relay.traceId);
    expect(ancestorsOf(classified, collector.spans)).toContain(relay);
    expect(ancestorsOf(only(collector.spans, 'llm.call'), collector.spans)).toContain(relay);
  });
});

describe('tracing settings', () => {
  it('are off unless OTEL_EXPORTER_OTLP_ENDPOINT is set', () => {
    expect(loadConfig({}).tracing).toBeNull();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).tracing).toBeNull();
  });

  it('refuse a protocol other than http/json, and a malformed endpoint, naming the variable', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' };
    expect(loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing?.endpoint).toBe(
      'http://127.0.0.1:4318',
    );
    expect(() => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: only http\/json/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(ConfigError);
  });

  it('read OTEL_EXPORTER_OTLP_HEADERS without ever echoing a value', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(
      loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20s3cr3t, x-team = desk' }).tracing
        ?.headers,
    ).toEqual({
      authorization: 'Bearer s3cr3t',
      'x-team': 'desk',
    });
    for (const bad of ['s3cr3t-no-name', 'x=%E0%A4%A-s3cr3t']) {
      let message = '';
      try {
        loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: bad });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^OTEL_EXPORTER_OTLP_HEADERS: /);
      expect(message).not.toContain('s3cr3t');
    }
  });
});
