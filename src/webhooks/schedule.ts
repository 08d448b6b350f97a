import type { TransportResult } from './ports.js';

// What an attempt's result means: the retry schedule, Retry-After, 410, and how long an endpoint
// may fail before it is turned off. Pure: the sender applies what this decides.

/** The waits after the first, second, … failed attempt; after the last, the delivery has failed. */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
/** A Retry-After longer than this is read as this. */
export const MAX_RETRY_AFTER_MS = 10 * 3_600_000;
/** An endpoint failing with no success for this long is turned off. */
export const FAILING_FOR_MS = 3 * 24 * 3_600_000;

export type Verdict =
  | { kind: 'succeeded' }
  /** 410: the endpoint is turned off at once and this delivery has failed. */
  | { kind: 'gone' }
  | { kind: 'retry'; next_attempt_at: string }
  | { kind: 'failed' };

export function succeeded(result: TransportResult): boolean {
  return result.error === null && result.status_code !== null && result.status_code >= 200 && result.status_code < 300;
}

/** The verdict on a delivery's attempt number `attempts` (this one included), made at `at`. */
export function judge(result: TransportResult, attempts: number, at: Date): Verdict {
  if (succeeded(result)) return { kind: 'succeeded' };
  if (result.status_code === 410) return { kind: 'gone' };
  const step = RETRY_SCHEDULE_MS[attempts - 1];
  if (step === undefined) return { kind: 'failed' };
  const wait = result.retry_after_s === null ? step : Math.min(result.retry_after_s * 1000, MAX_RETRY_AFTER_MS);
  return { kind: 'retry', next_attempt_at: new Date(at.getTime() + wait).toISOString() };
}

/** Whether an endpoint failing since `failingSince` has failed long enough to be turned off at `at`. */
export function failingTooLong(failingSince: string | null, at: Date): boolean {
  return failingSince !== null && at.getTime() - Date.parse(failingSince) >= FAILING_FOR_MS;
}
