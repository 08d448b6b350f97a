import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ANSWER_JSON_SCHEMA } from '../../src/classify/llm/answer.js';
import { ANSWER_TOOL_NAME, createAnthropicClient } from '../../src/classify/llm/anthropic.js';
import {
  LlmBadCredentials,
  LlmInvalidAnswer,
  LlmProviderError,
  LlmRateLimited,
  LlmTimeout,
  type LlmClient,
  type LlmFailure,
  type LlmRequest,
} from '../../src/classify/llm/client.js';
import { createOpenAiClient } from '../../src/classify/llm/openai.js';
import { FAKE_ANSWER, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';

const KEY = 'sk-test-key-0123456789abcdef';
let fake: FakeLlm;

beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

const request = (patch: Partial<LlmRequest> = {}): LlmRequest => ({
  system: 'SYSTEM PROMPT',
  user: '<email_subject>Budget</email_subject>',
  model: 'test-model-1',
  temperature: 0.2,
  timeout_ms: 2_000,
  signal: new AbortController().signal,
  ...patch,
});

const clients: Array<[string, () => LlmClient]> = [
  ['openai', () => createOpenAiClient({ api_key: KEY, base_url: fake.openaiBaseUrl })],
  ['anthropic', () => createAnthropicClient({ api_key: KEY, base_url: fake.url })],
];

async function failureOf(promise: Promise<unknown>): Promise<LlmFailure> {
  try {
    await promise;
  } catch (error) {
    return error as LlmFailure;
  }
  throw new Error('expected the call to fail');
}

describe('OpenAI client through the official SDK', () => {
  it('sends model, temperature, both prompts and the strict JSON schema with our key', async () => {
    const answer = await clients[0]![1]().complete(request());
    expect(answer).toEqual(FAKE_ANSWER);
    const [sent] = fake.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.body).toMatchObject({
      model: 'test-model-1',
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'SYSTEM PROMPT' },
        { role: 'user', content: '<email_subject>Budget</email_subject>' },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'email_classification', strict: true, schema: ANSWER_JSON_SCHEMA },
      },
    });
  });

  it('ignores OPENAI_* variables: key, base URL, organization and admin key come only from us', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      OPENAI_API_KEY: 'env-key-must-not-leak',
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      OPENAI_ORG_ID: 'org-env',
      OPENAI_PROJECT_ID: 'proj-env',
      OPENAI_ADMIN_KEY: 'admin-env-key',
    });
    try {
      await createOpenAiClient({ api_key: KEY, base_url: fake.openaiBaseUrl }).complete(request());
    } finally {
      process.env = saved;
    }
    const headers = JSON.stringify(fake.requests[0]!.headers);
    expect(headers).toContain(KEY);
    expect(headers).not.toMatch(/env-key-must-not-leak|org-env|proj-env|admin-env-key/);
  });
});

describe('Anthropic client through the official SDK', () => {
  it('forces the answer tool with our schema and sends our key', async () => {
    const answer = await clients[1]![1]().complete(request());
    expect(answer).toEqual(FAKE_ANSWER);
    const [sent] = fake.requests;
    expect(sent!.path).toBe('/v1/messages');
    expect(`${sent!.headers.authorization ?? ''} ${sent!.headers['x-api-key'] ?? ''}`).toContain(KEY);
    expect(sent!.body).toMatchObject({
      model: 'test-model-1',
      system: 'SYSTEM PROMPT',
      messages: [{ role: 'user', content: '<email_subject>Budget</email_subject>' }],
      tools: [{ name: ANSWER_TOOL_NAME, input_schema: ANSWER_JSON_SCHEMA }],
      tool_choice: { type: 'tool', name: ANSWER_TOOL_NAME },
    });
    // Deprecated by Anthropic and rejected by newer models.
    expect(sent!.body).not.toHaveProperty('temperature');
  });

  it('ignores ANTHROPIC_* variables', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: 'env-key-must-not-leak',
      ANTHROPIC_AUTH_TOKEN: 'env-token',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
    });
    try {
      await createAnthropicClient({ api_key: KEY, base_url: fake.url }).complete(request());
    } finally {
      process.env = saved;
    }
    const headers = JSON.stringify(fake.requests[0]!.headers);
    expect(headers).toContain(KEY);
    expect(headers).not.toMatch(/env-key-must-not-leak|env-token/);
  });
});

describe.each(clients)('%s failures map to our failure kinds', (_provider, makeClient) => {
  it('401 → bad_credentials, not retryable, without the echoed key', async () => {
    fake.script({ kind: 'status', status: 401, message: `Incorrect API key provided: ${KEY}` });
    const failure = await failureOf(makeClient().complete(request()));
    expect(failure).toBeInstanceOf(LlmBadCredentials);
    expect(failure.retryable).toBe(false);
    expect(`${failure.message} ${failure.stack} ${JSON.stringify(failure)}`).not.toContain(KEY);
  });

  it('403 → bad_credentials', async () => {
    fake.script({ kind: 'status', status: 403 });
    expect(await failureOf(makeClient().complete(request()))).toBeInstanceOf(LlmBadCredentials);
  });

  it('429 → rate_limit with Retry-After in milliseconds', async () => {
    fake.script({ kind: 'status', status: 429, headers: { 'retry-after': '2' } });
    const failure = await failureOf(makeClient().complete(request()));
    expect(failure).toBeInstanceOf(LlmRateLimited);
    expect((failure as LlmRateLimited).retry_after_ms).toBe(2_000);
  });

  it.each([
    [500, true],
    [503, true],
    [409, true],
    [400, false],
    [404, false],
  ])('%i → provider_error, retryable %s', async (status, retryable) => {
    fake.script({ kind: 'status', status });
    const failure = await failureOf(makeClient().complete(request()));
    expect(failure).toBeInstanceOf(LlmProviderError);
    expect(failure).toMatchObject({ status, retryable });
  });

  it('408 → timeout', async () => {
    fake.script({ kind: 'status', status: 408 });
    expect(await failureOf(makeClient().complete(request()))).toBeInstanceOf(LlmTimeout);
  });

  it('a hang past the attempt timeout → timeout', async () => {
    fake.script({ kind: 'hang' });
    const started = Date.now();
    const failure = await failureOf(makeClient().complete(request({ timeout_ms: 200 })));
    expect(failure).toBeInstanceOf(LlmTimeout);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('an abort of the overall deadline → timeout', async () => {
    fake.script({ kind: 'hang' });
    const controller = new AbortController();
    const before = fake.requests.length;
    const failure = failureOf(makeClient().complete(request({ signal: controller.signal })));
    // Aborted while the provider holds the call.
    await vi.waitFor(() => expect(fake.requests.length).toBe(before + 1), { timeout: 5_000 });
    controller.abort();
    expect(await failure).toBeInstanceOf(LlmTimeout);
  });

  it('a body that is not JSON → invalid_answer', async () => {
    fake.script({ kind: 'malformed_body' });
    expect(await failureOf(makeClient().complete(request()))).toBeInstanceOf(LlmInvalidAnswer);
  });

  it('an answer that is not JSON or not a tool call → invalid_answer', async () => {
    fake.script({ kind: 'malformed_answer' });
    expect(await failureOf(makeClient().complete(request()))).toBeInstanceOf(LlmInvalidAnswer);
  });

  it('a refused connection → provider_error, retryable', async () => {
    const closed = await startFakeLlm();
    await closed.close();
    const client =
      _provider === 'openai'
        ? createOpenAiClient({ api_key: KEY, base_url: closed.openaiBaseUrl })
        : createAnthropicClient({ api_key: KEY, base_url: closed.url });
    const failure = await failureOf(client.complete(request()));
    expect(failure).toBeInstanceOf(LlmProviderError);
    expect(failure).toMatchObject({ status: null, retryable: true });
  });
});
