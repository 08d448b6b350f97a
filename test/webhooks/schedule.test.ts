import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter as retryAfterSeconds } from '../../src/shared/net/outbound-post.js';
import { MAX_RETRY_AFTER_MS, RETRY_SCHEDULE_MS, newSecret, signature } from '../../src/webhooks/index.js';
import { judge } from '../../src/webhooks/schedule.js';

// The pure rules: Retry-After read from seconds or an HTTP date, the verdict on each attempt, and
// a signature equal to the official library's for the same secret, id, time and body.

const AT = new Date('2026-12-07T12:00:00.000Z');
const answer = (status_code: number | null, retry_after_s: number | null = null, error: string | null = null) => ({
  status_code,
  latency_ms: 1,
  response_body: '',
  retry_after_s,
  error,
});

describe('webhook retry rules', () => {
  it('reads Retry-After as seconds or as an HTTP date, and ignores what it cannot read', () => {
    expect(retryAfterSeconds('120', AT)).toBe(120);
    expect(retryAfterSeconds('Sun, 07 Dec 2026 12:01:30 GMT', AT)).toBe(90);
    expect(retryAfterSeconds('Sun, 07 Dec 2026 11:00:00 GMT', AT)).toBe(0);
    expect(retryAfterSeconds('soon', AT)).toBeNull();
    expect(retryAfterSeconds(null, AT)).toBeNull();
  });

  it('judges each attempt: 2xx succeeds, 410 is gone, the rest retry on the schedule, then fail', () => {
    expect(judge(answer(204), 1, AT)).toEqual({ kind: 'succeeded' });
    expect(judge(answer(200, null, 'redirect'), 1, AT).kind).toBe('retry');
    expect(judge(answer(410), 3, AT)).toEqual({ kind: 'gone' });
    RETRY_SCHEDULE_MS.forEach((wait, index) => {
      const verdict = judge(answer(500), index + 1, AT);
      expect(verdict).toEqual({ kind: 'retry', next_attempt_at: new Date(AT.getTime() + wait).toISOString() });
    });
    expect(judge(answer(null, null, 'timeout'), RETRY_SCHEDULE_MS.length + 1, AT)).toEqual({ kind: 'failed' });
    expect(judge(answer(429, 7), 1, AT)).toEqual({ kind: 'retry', next_attempt_at: '2026-12-07T12:00:07.000Z' });
    const capped = judge(answer(503, 10 ** 9), 1, AT);
    expect(capped).toEqual({
      kind: 'retry',
      next_attempt_at: new Date(AT.getTime() + MAX_RETRY_AFTER_MS).toISOString(),
    });
  });

  it('signs as the official library does', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: 'webhook.test', data: { n: 1 } });
    expect(signature(secret, 'msg_abc', Math.floor(AT.getTime() / 1000), body)).toBe(
      new Webhook(secret).sign('msg_abc', AT, body),
    );
  });
});
