import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '../../src/classify/llm/answer.js';
import { createAnthropicClient } from '../../src/classify/llm/anthropic.js';
import {
  LlmInvalidAnswer,
  LlmProviderError,
  LlmRateLimited,
  LlmTimeout,
  retryAfterMs,
  type LlmClient,
} from '../../src/classify/llm/client.js';
import { createOpenAiClient } from '../../src/classify/llm/openai.js';
import {
  buildRetryPolicy,
  delayBeforeRetry,
  withRetry,
  type RetryClock,
  type RetryPolicy,
} from '../../src/classify/llm/retry.js';
import { FAKE_ANSWER, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';

/** A clock whose sleeps pass instantly but are recorded. */
function fakeClock(random = 0.5): RetryClock & { slept: number[]; advance(ms: number): void } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    advance: (ms) => {
      now += ms;
    },
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
    random: () => random,
  };
}

const policy = (patch: Partial<RetryPolicy> = {}): RetryPolicy => ({
  max_retries: 2,
  attempt_timeout_ms: 1_000,
  deadline_ms: 60_000,
  base_delay_ms: 100,
  max_delay_ms: 1_000,
  retry_after_cap_ms: 5_000,
  ...patch,
});

describe('withRetry', () => {
  it('retries retryable failures with exponential backoff and jitter, then succeeds', async () => {
    const clock = fakeClock(0.5);
    let calls = 0;
    const outcome = await withRetry(
      async () => {
        calls += 1;
        if (calls < 3) throw new LlmProviderError('boom', 500, true);
        return 'ok';
      },
      policy(),
      clock,
    );
    expect(outcome).toEqual({ ok: true, value: 'ok', attempts: 3 });
    // Equal jitter: half the step plus random × half the step.
    expect(clock.slept).toEqual([75, 150]);
  });

  it('never retries what is not retryable', async () => {
    let calls = 0;
    const outcome = await withRetry(
      async () => {
        calls += 1;
        throw new LlmProviderError('bad request', 400, false);
      },
      policy(),
      fakeClock(),
    );
    expect(calls).toBe(1);
    expect(outcome).toMatchObject({ ok: false, attempts: 1, failure: { status: 400 } });
  });

  it('gives up after max_retries and reports the last failure', async () => {
    const outcome = await withRetry(
      async () => {
        throw new LlmInvalidAnswer(['nope']);
      },
      policy({ max_retries: 1 }),
      fakeClock(),
    );
    expect(outcome).toMatchObject({ ok: false, attempts: 2 });
    expect(!outcome.ok && outcome.failure.kind).toBe('invalid_answer');
  });

  it('honours Retry-After, capped', async () => {
    const clock = fakeClock();
    let calls = 0;
    await withRetry(
      async () => {
        calls += 1;
        if (calls === 1) throw new LlmRateLimited(1_200);
        if (calls === 2) throw new LlmRateLimited(120_000);
        return 'ok';
      },
      policy(),
      clock,
    );
    expect(clock.slept).toEqual([1_200, 5_000]);
  });

  it('stops when the next wait would pass the overall deadline', async () => {
    const clock = fakeClock();
    const outcome = await withRetry(
      async () => {
        throw new LlmRateLimited(4_000);
      },
      policy({ deadline_ms: 3_000 }),
      clock,
    );
    expect(outcome.attempts).toBe(1);
    expect(clock.slept).toEqual([]);
  });

  it('gives each attempt at most the time left before the deadline', async () => {
    const clock = fakeClock();
    const timeouts: number[] = [];
    await withRetry(
      async ({ timeout_ms }) => {
        timeouts.push(timeout_ms);
        clock.advance(timeout_ms);
        throw new LlmTimeout();
      },
      policy({ attempt_timeout_ms: 1_000, deadline_ms: 1_500, base_delay_ms: 100 }),
      clock,
    );
    // 1000 ms spent, then a 75 ms wait: 425 ms left for the second attempt, none for a third.
    expect(timeouts).toEqual([1_000, 425]);
  });

  it('treats an unexpected error as a non-retryable provider error', async () => {
    const outcome = await withRetry(
      async () => {
        throw new TypeError('bug');
      },
      policy(),
      fakeClock(),
    );
    expect(outcome).toMatchObject({ ok: false, attempts: 1, failure: { kind: 'provider_error', retryable: false } });
  });

  it('caps the backoff step at max_delay_ms', () => {
    expect(delayBeforeRetry(10, new LlmTimeout(), policy(), fakeClock(1))).toBe(1_000);
  });

  it('builds a deadline that leaves room for every attempt', () => {
    expect(buildRetryPolicy(30_000, 2)).toMatchObject({
      max_retries: 2,
      attempt_timeout_ms: 30_000,
      deadline_ms: 95_000,
    });
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3_000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
  });
});

describe('retries against the fake provider through the SDKs', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await fake.close();
  });

  const fast = policy({ base_delay_ms: 5, max_delay_ms: 20, attempt_timeout_ms: 300, retry_after_cap_ms: 50 });

  async function classify(client: LlmClient, retryPolicy: RetryPolicy = fast) {
    return withRetry(async ({ timeout_ms, signal }) => {
      const raw = await client.complete({ system: 's', user: 'u', model: 'm', temperature: 0, timeout_ms, signal });
      const checked = checkAnswer(raw);
      if (!checked.ok) throw new LlmInvalidAnswer(checked.problems);
      return checked.answer;
    }, retryPolicy);
  }

  it.each([
    ['openai', () => createOpenAiClient({ api_key: 'k', base_url: fake.openaiBaseUrl })],
    ['anthropic', () => createAnthropicClient({ api_key: 'k', base_url: fake.url })],
  ])('%s: 429 (Retry-After), a hang, an answer outside the schema, then a valid answer', async (_name, makeClient) => {
    fake.requests.length = 0;
    fake.script(
      { kind: 'status', status: 429, headers: { 'retry-after': '30' } },
      { kind: 'hang' },
      { kind: 'answer', answer: { ...FAKE_ANSWER, category: 'urgent' } },
    );
    const started = Date.now();
    const outcome = await classify(makeClient(), { ...fast, max_retries: 3 });
    expect(outcome).toMatchObject({ ok: true, attempts: 4, value: { category: 'action_required' } });
    expect(fake.requests).toHaveLength(4);
    // 30 s asked, 50 ms cap honoured; one 300 ms hang.
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('401 is tried once', async () => {
    fake.requests.length = 0;
    fake.script({ kind: 'status', status: 401 });
    const outcome = await classify(createOpenAiClient({ api_key: 'k', base_url: fake.openaiBaseUrl }));
    expect(outcome).toMatchObject({ ok: false, attempts: 1, failure: { kind: 'bad_credentials' } });
    expect(fake.requests).toHaveLength(1);
  });

  it('500 on every attempt ends as provider_error after 1 + max_retries attempts', async () => {
    fake.requests.length = 0;
    fake.script({ kind: 'status', status: 500 }, { kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const outcome = await classify(createOpenAiClient({ api_key: 'k', base_url: fake.openaiBaseUrl }));
    expect(outcome).toMatchObject({ ok: false, attempts: 3, failure: { kind: 'provider_error', status: 500 } });
    expect(fake.requests).toHaveLength(3);
  });
});
