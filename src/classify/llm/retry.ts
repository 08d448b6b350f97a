// The one retry owner. The SDKs are built with maxRetries 0, so every attempt, wait and
// give-up decision is made here, inside one overall deadline.

import { LlmFailure, LlmProviderError, LlmRateLimited, LlmTimeout } from './client.js';

export interface RetryPolicy {
  /** Attempts after the first. */
  max_retries: number;
  /** Time allowed for one attempt. */
  attempt_timeout_ms: number;
  /** Time allowed for all attempts and waits together. */
  deadline_ms: number;
  base_delay_ms: number;
  max_delay_ms: number;
  /** A provider asking for a longer pause than this is waited on for this long only. */
  retry_after_cap_ms: number;
}

export type Backoff = Pick<RetryPolicy, 'base_delay_ms' | 'max_delay_ms' | 'retry_after_cap_ms'>;

export const DEFAULT_BACKOFF: Readonly<Backoff> = {
  base_delay_ms: 250,
  max_delay_ms: 8_000,
  retry_after_cap_ms: 20_000,
};

/** Room for the waits between attempts, on top of the attempts themselves. */
const BACKOFF_ALLOWANCE_MS = 5_000;

export function buildRetryPolicy(timeoutMs: number, maxRetries: number): RetryPolicy {
  return {
    max_retries: maxRetries,
    attempt_timeout_ms: timeoutMs,
    deadline_ms: timeoutMs * (maxRetries + 1) + BACKOFF_ALLOWANCE_MS,
    ...DEFAULT_BACKOFF,
  };
}

export interface RetryClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

export const systemClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

export interface AttemptContext {
  /** 0 for the first attempt. */
  attempt: number;
  timeout_ms: number;
  signal: AbortSignal;
}

export type RetryOutcome<T> =
  { ok: true; value: T; attempts: number } | { ok: false; failure: LlmFailure; attempts: number };

export async function withRetry<T>(
  run: (context: AttemptContext) => Promise<T>,
  policy: RetryPolicy,
  clock: RetryClock = systemClock,
): Promise<RetryOutcome<T>> {
  const deadline = clock.now() + policy.deadline_ms;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), policy.deadline_ms);
  timer.unref?.();
  // Created only when needed: an Error captures a stack trace, which the happy path can skip.
  let failure: LlmFailure | null = null;
  let attempts = 0;
  try {
    for (let attempt = 0; attempt <= policy.max_retries; attempt += 1) {
      const remaining = deadline - clock.now();
      if (remaining <= 0) break;
      attempts += 1;
      try {
        const value = await run({
          attempt,
          timeout_ms: Math.min(policy.attempt_timeout_ms, remaining),
          signal: controller.signal,
        });
        return { ok: true, value, attempts };
      } catch (error) {
        failure =
          error instanceof LlmFailure ? error : new LlmProviderError('the attempt failed unexpectedly', null, false);
      }
      if (!failure.retryable || attempt === policy.max_retries) break;
      const delay = delayBeforeRetry(attempt + 1, failure, policy, clock);
      // Not enough time left for a wait and another attempt: stop now rather than at the deadline.
      if (clock.now() + delay >= deadline) break;
      await clock.sleep(delay);
    }
  } finally {
    clearTimeout(timer);
  }
  return { ok: false, failure: failure ?? new LlmTimeout('the overall deadline passed'), attempts };
}

/** Retry-After when the provider sent one (capped); else exponential backoff with jitter. */
export function delayBeforeRetry(retry: number, failure: LlmFailure, policy: RetryPolicy, clock: RetryClock): number {
  if (failure instanceof LlmRateLimited && failure.retry_after_ms !== null) {
    return Math.min(failure.retry_after_ms, policy.retry_after_cap_ms);
  }
  const ceiling = Math.min(policy.max_delay_ms, policy.base_delay_ms * 2 ** (retry - 1));
  // "Equal jitter": at least half the step, so retries never bunch up at zero.
  return ceiling / 2 + clock.random() * (ceiling / 2);
}
