import { createOutboundPoster, UnsafeOutboundUrl } from '../shared/net/outbound-post.js';
import type { HostResolver } from '../shared/net/ssrf.js';
import { UrlRefused, type UrlGuard, type WebhookTransport } from './ports.js';

// Deliveries go out through the desk's one outbound guard (OUTBOUND_ALLOWED_HOSTS): the address is
// checked when an endpoint is saved and again as each socket opens, and no redirect is followed.

export const SEND_TIMEOUT_MS = 15_000;

export interface HttpTransportOptions {
  allowedHosts: readonly string[];
  timeoutMs?: number;
  /** Tests resolve names to the addresses they choose. */
  resolve?: HostResolver;
  now?: () => Date;
}

export interface HttpTransport {
  guard: UrlGuard;
  transport: WebhookTransport;
  close(): Promise<void>;
}

export function createHttpTransport({
  allowedHosts,
  timeoutMs = SEND_TIMEOUT_MS,
  resolve,
  now,
}: HttpTransportOptions): HttpTransport {
  const poster = createOutboundPoster({ allowedHosts, ...(resolve && { resolve }), ...(now && { now }) });
  return {
    async guard(url) {
      try {
        await poster.check(url.href);
      } catch (error) {
        if (error instanceof UnsafeOutboundUrl) throw new UrlRefused(error.message);
        throw error;
      }
    },
    async transport(url, headers, body) {
      const result = await poster.post(url, { headers, body, timeoutMs });
      // A redirect is an answer, not a way elsewhere: the log says why it counts as a failure.
      const redirected =
        result.error === null && result.status_code !== null && result.status_code >= 300 && result.status_code < 400;
      return redirected ? { ...result, error: `answered ${result.status_code}: a redirect is not followed` } : result;
    },
    close: () => poster.close(),
  };
}
