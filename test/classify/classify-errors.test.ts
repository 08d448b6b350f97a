import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type FakeLlm, type FakeReply, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { CALLER_KEY, SERVER_KEY, startClassifyApp } from '../support/classify-app.js';

let counter = 0;
function freshEmail(patch: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    email_data: { subject: `Report ${counter}`, body: `Could you check report ${counter}?` },
    id: `err-${counter}-${Date.now()}`,
    ...patch,
  };
}

describe.each(await storesUnderTest())('POST /classify failures, validation and security on %s', (kind) => {
  let globalFake: FakeLlm;
  let callerFake: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    globalFake = await startFakeLlm();
    callerFake = await startFakeLlm();
    t = await startClassifyApp(kind, {
      LLM_PROVIDER: 'openai',
      LLM_API_KEY: SERVER_KEY,
      LLM_BASE_URL: globalFake.openaiBaseUrl,
      LLM_TIMEOUT_MS: '250',
      LLM_MAX_RETRIES: '2',
      LLM_ALLOWED_HOSTS: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await t.close();
    await globalFake.close();
    await callerFake.close();
  });
  afterEach(() => {
    globalFake.requests.length = 0;
    callerFake.requests.length = 0;
  });
  const classify = (body: unknown) => call(t.app, 'POST', '/classify', body);

  describe('provider failures give 200 with the fallback result', () => {
    const cases: Array<[string, FakeReply[], string, number]> = [
      ['timeout', [{ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' }], 'timeout', 3],
      ['rate_limit', Array(3).fill({ kind: 'status', status: 429, headers: { 'retry-after': '1' } }), 'rate_limit', 3],
      ['provider_error', Array(3).fill({ kind: 'status', status: 503 }), 'provider_error', 3],
      [
        'invalid_answer',
        [{ kind: 'malformed_answer' }, { kind: 'malformed_body' }, { kind: 'answer', answer: { category: 'urgent' } }],
        'invalid_answer',
        3,
      ],
      [
        'bad_credentials',
        [{ kind: 'status', status: 401, message: `Incorrect API key provided: ${SERVER_KEY}` }],
        'bad_credentials',
        1,
      ],
      ['a 400, not retried', [{ kind: 'status', status: 400 }], 'provider_error', 1],
      ['a 404, not retried', [{ kind: 'status', status: 404 }], 'provider_error', 1],
    ];
    it.each(cases)('%s', async (_name, replies, failureKind, attempts) => {
      globalFake.script(...replies);
      const email = freshEmail();
      const response = await classify(email);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        category: 'uncategorized',
        needs_action: false,
        priority: 'low',
        task_description: null,
        confidence: 0,
        details: {
          people: [],
          organizations: [],
          attachments_referenced: [],
          next_steps: [],
          key_points: [],
          source_signals: [],
          summary: null,
        },
        dedupe: { status: 'new', message_id: email.id },
      });
      expect(response.body.reasoning).toContain(`(${failureKind})`);
      expect(response.body.details.dedupe_key).toBe(response.body.dedupe.fingerprint);
      expect(globalFake.requests).toHaveLength(attempts);
      expect(response.text).not.toContain(SERVER_KEY);
    });

    it('retries a 500 and a 429 and answers with the provider result', async () => {
      globalFake.script(
        { kind: 'status', status: 500 },
        { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      );
      const response = await classify(freshEmail());
      expect(response.body.category).toBe('action_required');
      expect(globalFake.requests).toHaveLength(3);
    });
  });

  describe('422 validation', () => {
    const invalid: Array<[string, unknown, string]> = [
      ['an empty body', {}, 'email_data'],
      [
        'a Graph message whose content fields are all empty',
        { id: 'x', subject: '  ', body: { contentType: 'html', content: '<p> </p>' }, bodyPreview: '' },
        'body',
      ],
      ['email_data that is not an object', { email_data: 'hello' }, 'email_data'],
      ['an email_data body that is not a string', { email_data: { body: 42 } }, 'email_data.body'],
      [
        'toRecipients that is not an array',
        { subject: 's', toRecipients: { emailAddress: { address: 'a@b.c' } } },
        'toRecipients',
      ],
      [
        'a recipient without emailAddress',
        { subject: 's', toRecipients: [{ address: 'a@b.c' }] },
        'toRecipients.0.emailAddress',
      ],
      [
        'a recipient address that is not a string',
        { subject: 's', ccRecipients: [{ emailAddress: { address: 7 } }] },
        'ccRecipients.0.emailAddress.address',
      ],
      ['a from that is not an object', { subject: 's', from: 'someone@x.y' }, 'from'],
      ['a receivedDateTime that is not a date', { subject: 's', receivedDateTime: 'yesterday' }, 'receivedDateTime'],
      ['hasAttachments as a string', { subject: 's', hasAttachments: 'yes' }, 'hasAttachments'],
      ['an unknown provider', { subject: 's', provider: 'mistral' }, 'provider'],
      ['the rules provider as an override', { subject: 's', provider: 'rules' }, 'provider'],
      ['a temperature above 1', { subject: 's', temperature: 1.5 }, 'temperature'],
      ['a negative temperature', { subject: 's', temperature: -0.1 }, 'temperature'],
      ['an empty model', { subject: 's', model: '' }, 'model'],
      ['base_url without api_key', { subject: 's', base_url: 'http://127.0.0.1:9/v1' }, 'api_key'],
      ['a provider with no server key', { subject: 's', provider: 'anthropic' }, 'api_key'],
      [
        'a base_url that is not http(s)',
        { subject: 's', base_url: 'file:///etc/passwd', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a base_url with credentials',
        { subject: 's', base_url: 'http://user:pw@llm.public.example/v1', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a metadata address',
        { subject: 's', base_url: 'http://169.254.169.254/latest', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a name that resolves to the metadata address',
        { subject: 's', base_url: 'http://metadata.internal.example/', api_key: CALLER_KEY },
        'base_url',
      ],
      ['a private address', { subject: 's', base_url: 'https://10.0.0.5/v1', api_key: CALLER_KEY }, 'base_url'],
      [
        'a name with one private address among public ones',
        { subject: 's', base_url: 'https://mixed.example/v1', api_key: CALLER_KEY },
        'base_url',
      ],
      ['IPv6 loopback', { subject: 's', base_url: 'http://[::1]:8080/', api_key: CALLER_KEY }, 'base_url'],
      [
        'a name resolving to IPv6 loopback',
        { subject: 's', base_url: 'http://v6-loopback.example/', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'an IPv4-mapped loopback',
        { subject: 's', base_url: 'http://mapped.example/', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'the metadata address written as a number',
        { subject: 's', base_url: 'http://2852039166/', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a name that does not resolve',
        { subject: 's', base_url: 'https://nowhere.invalid/', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a documentation address (TEST-NET-3)',
        { subject: 's', base_url: 'http://203.0.113.1/v1', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a documentation address (TEST-NET-1)',
        { subject: 's', base_url: 'http://192.0.2.10/v1', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a documentation address (TEST-NET-2)',
        { subject: 's', base_url: 'https://198.51.100.7/', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a name resolving to a documentation address',
        { subject: 's', base_url: 'https://documentation.example/', api_key: CALLER_KEY },
        'base_url',
      ],
      ['the broadcast address', { subject: 's', base_url: 'http://255.255.255.255/', api_key: CALLER_KEY }, 'base_url'],
      [
        'an IPv6 documentation address',
        { subject: 's', base_url: 'http://[2001:db8::1]/', api_key: CALLER_KEY },
        'base_url',
      ],
      [
        'a 6to4 address wrapping loopback',
        { subject: 's', base_url: 'http://[2002:7f00:1::1]/', api_key: CALLER_KEY },
        'base_url',
      ],
      ['the IPv6 discard prefix', { subject: 's', base_url: 'http://[100::1]/', api_key: CALLER_KEY }, 'base_url'],
      [
        'an IPv4-compatible IPv6 address',
        { subject: 's', base_url: 'http://[::10.0.0.1]/', api_key: CALLER_KEY },
        'base_url',
      ],
    ];
    it.each(invalid)('%s', async (_name, body, field) => {
      const response = await classify(body);
      expect(response.status).toBe(422);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
      expect(response.text).not.toContain(CALLER_KEY);
      expect(globalFake.requests).toHaveLength(0);
    });

    it('an empty email is one error with one message, not the same message per field', async () => {
      for (const body of [{}, { email_data: { subject: ' ', body: '<p></p>' } }, { subject: '', bodyPreview: '' }]) {
        const response = await classify(body);
        expect(response.status).toBe(422);
        expect(response.body.errors).toHaveLength(1);
        expect(response.body.errors[0].message).toMatch(/no text/);
        expect(response.body.detail).toBe(`${response.body.errors[0].field}: ${response.body.errors[0].message}`);
      }
    });

    it('a refused base_url host is "not allowed" in the same words whether or not its name resolves', async () => {
      const messages = [];
      for (const host of ['intranet.example', 'nowhere.invalid', 'metadata.internal.example', '10.0.0.5']) {
        const response = await classify({ subject: 's', base_url: `https://${host}/v1`, api_key: CALLER_KEY });
        expect(response.status).toBe(422);
        messages.push(JSON.stringify([response.body.detail, response.body.errors]).replaceAll(host, '<host>'));
      }
      expect(new Set(messages).size).toBe(1);
      expect(messages[0]).toContain('not allowed');
      expect(messages[0]).not.toMatch(/resolv/);
    });

    it('a loopback base_url is allowed when its host is in LLM_ALLOWED_HOSTS', async () => {
      const response = await classify(freshEmail({ base_url: callerFake.openaiBaseUrl, api_key: CALLER_KEY }));
      expect(response.status).toBe(200);
      expect(callerFake.requests).toHaveLength(1);
    });

    it('a subject alone is enough', async () => {
      const response = await classify({ subject: `Lunch on Friday ${Date.now()}?` });
      expect(response.status).toBe(200);
    });
  });

  describe('other HTTP errors', () => {
    it('413 above 5 MiB', async () => {
      const body = JSON.stringify({ email_data: { subject: 'big', body: 'x'.repeat(5 * 1024 * 1024 + 10) } });
      const response = await t.app.inject({
        method: 'POST',
        url: '/classify',
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      expect(response.statusCode).toBe(413);
    });

    it('415 for a body that is not JSON', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/classify',
        headers: { 'content-type': 'text/plain' },
        payload: 'hello',
      });
      expect(response.statusCode).toBe(415);
    });

    // Node's own message for the second one quotes the text around the fault: the key.
    it.each([`{"api_key": "${CALLER_KEY}", "subject": "x",,}`, `{"api_key": ${CALLER_KEY}}`])(
      '400 for malformed JSON, without quoting the body (and its api_key): %#',
      async (payload) => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/classify',
          headers: { 'content-type': 'application/json' },
          payload,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ status: 400, detail: 'The body is not valid JSON' });
        expect(response.body).not.toContain(CALLER_KEY.slice(0, 10));
        expect(t.logs.text()).not.toContain(CALLER_KEY.slice(0, 10));
      },
    );
  });

  describe('security', () => {
    it("a caller's base_url gets the caller's key and never the server's", async () => {
      const response = await classify(
        freshEmail({ base_url: callerFake.openaiBaseUrl, api_key: CALLER_KEY, model: 'caller-model' }),
      );
      expect(response.status).toBe(200);
      expect(globalFake.requests).toHaveLength(0);
      expect(callerFake.requests).toHaveLength(1);
      const headers = JSON.stringify(callerFake.requests[0]!.headers);
      expect(headers).toContain(CALLER_KEY);
      expect(headers).not.toContain(SERVER_KEY);
      expect(callerFake.requests[0]!.body.model).toBe('caller-model');
    });

    it("a caller's key without base_url goes to the server's host, the server key stays home", async () => {
      await classify(freshEmail({ api_key: CALLER_KEY }));
      expect(globalFake.requests).toHaveLength(1);
      expect(globalFake.requests[0]!.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
    });

    it('the server key goes only to the configured host', async () => {
      await classify(freshEmail());
      expect(globalFake.requests[0]!.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
    });

    it('an anthropic override speaks the Messages API to the caller host', async () => {
      const response = await classify(
        freshEmail({ provider: 'anthropic', base_url: callerFake.url, api_key: CALLER_KEY }),
      );
      expect(response.body.category).toBe('action_required');
      expect(callerFake.requests[0]).toMatchObject({
        api: 'anthropic',
        path: '/v1/messages',
        body: { model: 'claude-haiku-4-5' },
      });
      expect(JSON.stringify(callerFake.requests[0]!.headers)).toContain(CALLER_KEY);
    });

    it('no api_key in logs, responses or the database, even when the provider echoes it', async () => {
      callerFake.script({ kind: 'status', status: 401, message: `Incorrect API key provided: ${CALLER_KEY}` });
      const failed = await classify(freshEmail({ base_url: callerFake.openaiBaseUrl, api_key: CALLER_KEY }));
      expect(failed.body.reasoning).toContain('(bad_credentials)');
      const ok = await classify(freshEmail({ base_url: callerFake.openaiBaseUrl, api_key: CALLER_KEY }));
      for (const text of [failed.text, ok.text, t.logs.text()]) {
        expect(text).not.toContain(CALLER_KEY);
        expect(text).not.toContain(SERVER_KEY);
      }
      expect(t.logs.lines.length).toBeGreaterThan(0);
      const rows = await Promise.all(
        (['classify_messages', 'classify_fingerprints', 'classify_threads'] as const).map((table) =>
          t.database.kysely.selectFrom(table).selectAll().execute(),
        ),
      );
      const dump = JSON.stringify(rows);
      expect(dump.length).toBeGreaterThan(100);
      expect(dump).not.toContain(CALLER_KEY);
      expect(dump).not.toContain(SERVER_KEY);
    });
  });
});

describe.each(await storesUnderTest())('overrides turned off on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startClassifyApp(kind, { LLM_PROVIDER: 'rules', CLASSIFY_ALLOW_OVERRIDES: 'false' });
  });
  afterAll(() => t.close());

  it.each([
    { temperature: 0.5 },
    { model: 'x' },
    { provider: 'openai' },
    { api_key: CALLER_KEY },
    { base_url: 'https://llm.public.example', api_key: CALLER_KEY },
  ])('403 for %o', async (override) => {
    const response = await call(t.app, 'POST', '/classify', { subject: 'hello', ...override });
    expect(response.status).toBe(403);
    expect(response.text).not.toContain(CALLER_KEY);
  });

  it('still classifies without overrides', async () => {
    expect((await call(t.app, 'POST', '/classify', { subject: 'hello' })).status).toBe(200);
  });
});

// One rule for overrides that choose what answers: provider, model or base_url need a key for
// that provider, the caller's or (for the server's own provider) the server's. Temperature only
// tunes whoever answers, so the offline rules ignore it.
describe.each(await storesUnderTest())('overrides on a server without a provider key on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startClassifyApp(kind, { LLM_PROVIDER: 'rules' });
  });
  afterAll(() => t.close());

  it.each([{ model: 'gpt-4.1' }, { provider: 'openai' }, { provider: 'anthropic', model: 'claude-x' }])(
    '422 naming api_key for %o',
    async (override) => {
      const response = await call(t.app, 'POST', '/classify', { subject: 'hello', ...override });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([{ field: 'api_key', message: expect.stringMatching(/is required/) }]);
    },
  );

  it('a temperature alone is accepted: the rules answer', async () => {
    const response = await call(t.app, 'POST', '/classify', { subject: 'hello', temperature: 0.4 });
    expect(response.status).toBe(200);
  });
});
