// Both official SDKs are generated from the same template and throw the same family of
// errors; this turns either family into our failures without keeping the SDK's message.

import { UnsafeBaseUrl } from '../../shared/net/ssrf.js';
import { LlmFailure, LlmInvalidAnswer, LlmProviderError, LlmTimeout, failureForStatus } from './client.js';

type ErrorClass = abstract new (...args: never[]) => Error;

export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIUserAbortError: ErrorClass;
}

export function toFailure(error: unknown, sdk: SdkErrorClasses): LlmFailure {
  if (error instanceof LlmFailure) return error;
  // Our overall deadline aborts the attempt through its signal.
  if (error instanceof sdk.APIUserAbortError) return new LlmTimeout('the overall deadline passed');
  if (error instanceof sdk.APIConnectionTimeoutError) return new LlmTimeout();
  if (error instanceof sdk.APIConnectionError) {
    // The guard refused the address the host resolved to; asking again would only give the
    // host another chance to answer with an internal address.
    if (causedBy(error, UnsafeBaseUrl))
      return new LlmProviderError('the provider host resolved to a refused address at connect time', null, false);
    return new LlmProviderError('could not connect to the provider', null, true);
  }
  if (error instanceof sdk.APIError) {
    const { status, headers } = error as Error & { status?: unknown; headers?: unknown };
    // Duck-typed: responses from the guarded fetch carry undici's own Headers class, not the global one.
    if (typeof status === 'number') return failureForStatus(status, isHeaders(headers) ? headers : undefined);
    return new LlmProviderError('the provider request failed', null, true);
  }
  // A response body that is not JSON at all.
  if (error instanceof SyntaxError) return new LlmInvalidAnswer(['the response body is not valid JSON']);
  return new LlmProviderError('the provider request failed unexpectedly', null, false);
}

function causedBy(error: unknown, type: ErrorClass): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
    if (current instanceof type) return true;
    current = (current as Error).cause;
  }
  return false;
}

function isHeaders(value: unknown): value is Headers {
  return typeof value === 'object' && value !== null && typeof (value as { get?: unknown }).get === 'function';
}

/** Parses the model's text answer; tolerates a Markdown fence that some local servers add. */
export function parseAnswerText(text: string | null | undefined): unknown {
  if (typeof text !== 'string' || text.trim() === '') throw new LlmInvalidAnswer(['the answer is empty']);
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(unfenced) as unknown;
  } catch {
    throw new LlmInvalidAnswer(['the answer is not valid JSON']);
  }
}
