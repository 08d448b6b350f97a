// The port every language-model provider sits behind, and the failures it may report.
// Failures carry a kind and an HTTP status, never the provider's message: a 401 body can
// quote part of the key, and a message is what ends up in logs.

import type { FetchLike } from '../../shared/net/guarded-fetch.js';

export type { FetchLike };

/** Tokens one response was billed for, as the provider's `usage` reports them. */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface LlmRequest {
  system: string;
  user: string;
  model: string;
  temperature: number;
  /** Time allowed for this one attempt. */
  timeout_ms: number;
  /** Aborts the attempt when the overall deadline passes. */
  signal: AbortSignal;
  /**
   * Told the tokens of each response that reports them, before its answer is checked: an
   * answer rejected afterwards (cut off, not JSON, no tool call) was billed all the same.
   */
  onUsage?: (usage: TokenUsage) => void;
}

export interface LlmClient {
  readonly provider: 'openai' | 'anthropic';
  /** One attempt, no retries: returns the parsed JSON answer, or throws an `LlmFailure`. */
  complete(request: LlmRequest): Promise<unknown>;
}

export interface LlmClientOptions {
  /** Always passed explicitly, so no SDK reads a key from the environment. */
  api_key: string;
  /** Always passed explicitly, so no SDK reads a base URL from the environment. */
  base_url: string;
  /** Replaces the global fetch, for hosts whose connections must be checked as they open. */
  fetch?: FetchLike;
}

export const FAILURE_KINDS = ['timeout', 'rate_limit', 'provider_error', 'invalid_answer', 'bad_credentials'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export abstract class LlmFailure extends Error {
  abstract readonly kind: FailureKind;
  abstract readonly retryable: boolean;
  override name = this.constructor.name;

  constructor(
    message: string,
    /** The provider's HTTP status, when there was a response. */
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export class LlmTimeout extends LlmFailure {
  readonly kind = 'timeout';
  readonly retryable = true;
  constructor(message = 'the provider did not answer in time') {
    super(message);
  }
}

export class LlmRateLimited extends LlmFailure {
  readonly kind = 'rate_limit';
  readonly retryable = true;
  constructor(
    /** From Retry-After (or retry-after-ms), when the provider sent one. */
    readonly retry_after_ms: number | null,
  ) {
    super('the provider is rate limiting requests', 429);
  }
}

export class LlmProviderError extends LlmFailure {
  readonly kind = 'provider_error';
  readonly retryable: boolean;
  constructor(message: string, status: number | null, retryable: boolean) {
    super(message, status);
    this.retryable = retryable;
  }
}

export class LlmInvalidAnswer extends LlmFailure {
  readonly kind = 'invalid_answer';
  // Sampling may well produce a valid answer on the next attempt.
  readonly retryable = true;
  constructor(readonly problems: readonly string[]) {
    super(`the provider's answer did not match the schema: ${problems.slice(0, 5).join('; ')}`);
  }
}

export class LlmBadCredentials extends LlmFailure {
  readonly kind = 'bad_credentials';
  readonly retryable = false;
  constructor(status: number) {
    super(`the provider refused the credentials (HTTP ${status})`, status);
  }
}

/** Statuses worth another attempt: timeouts, lock conflicts, rate limits, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Maps an HTTP status to our failure. Both SDKs expose `status` and `headers` on their API
 * errors; the response body is deliberately not read.
 */
export function failureForStatus(status: number, headers: Headers | undefined): LlmFailure {
  if (status === 401 || status === 403) return new LlmBadCredentials(status);
  if (status === 429) return new LlmRateLimited(retryAfterMs(headers));
  if (status === 408) return new LlmTimeout('the provider timed out the request (HTTP 408)');
  return new LlmProviderError(`the provider answered HTTP ${status}`, status, isRetryableStatus(status));
}

/** Reads `retry-after-ms` (OpenAI), then `Retry-After` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | null {
  if (!headers) return null;
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const raw = headers.get('retry-after');
  if (raw === null) return null;
  const seconds = Number.parseFloat(raw);
  if (/^\s*\d+(\.\d+)?\s*$/.test(raw) && Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
