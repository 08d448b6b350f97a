import type { TransportResult, WebhookTransport } from './ports.js';

// The delivery's POST with the global fetch: redirects are answers (a 3xx is a failure, never
// followed), one timeout covers the connect and the whole answer, and only its first KiB is kept.

export const SEND_TIMEOUT_MS = 15_000;
const KEPT_BYTES = 1024;

export interface HttpTransportOptions {
  timeoutMs?: number;
  /** Read for the latency only; the schedule's clock is the sender's. */
  elapsed?: () => number;
}

/** Retry-After as seconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

async function firstBytes(response: Response, signal: AbortSignal): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < KEPT_BYTES && !signal.aborted) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, KEPT_BYTES).toString('utf8');
}

export function createHttpTransport({
  timeoutMs = SEND_TIMEOUT_MS,
  elapsed = () => performance.now(),
}: HttpTransportOptions = {}): WebhookTransport {
  return async (url, headers, body): Promise<TransportResult> => {
    const started = elapsed();
    const latency = () => Math.max(0, Math.round(elapsed() - started));
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: controller.signal,
      });
      const text = await firstBytes(response, controller.signal);
      if (controller.signal.aborted) throw new Error('timeout');
      const redirect = response.status >= 300 && response.status < 400;
      return {
        status_code: response.status,
        latency_ms: latency(),
        response_body: text,
        retry_after_s: retryAfterSeconds(response.headers.get('retry-after'), new Date()),
        error: redirect ? `redirect to ${response.headers.get('location') ?? 'nowhere'} not followed` : null,
      };
    } catch (error) {
      const message = controller.signal.aborted
        ? `no answer within ${timeoutMs} ms`
        : String((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message);
      return { status_code: null, latency_ms: latency(), response_body: null, retry_after_s: null, error: message };
    } finally {
      clearTimeout(timer);
    }
  };
}
