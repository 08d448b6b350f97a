// A POST to a URL someone typed (a webhook's): the address check of ssrf.ts when the URL is saved and on
// every socket, no redirect followed, one timeout over the whole exchange, only the answer's first KiB kept,
// and a result instead of an exception whatever the network does.

import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { buildGuardedConnector, type AddressCheck } from './guarded-fetch.js';
import { type AllowList, type HostResolver, addressRefusal, buildAllowList, systemResolver } from './ssrf.js';

/** The most of a response body a result keeps; the rest is never read. */
export const RESPONSE_BODY_LIMIT = 1024;

/** The URL may not be posted to; the message names the host, never the whole URL (it may hold a token). */
export class UnsafeOutboundUrl extends Error {
  override name = 'UnsafeOutboundUrl';
}

export interface OutboundGuardOptions {
  /** OUTBOUND_ALLOWED_HOSTS as config.ts reads it. */
  allowedHosts: readonly string[];
  resolve?: HostResolver;
}

export interface OutboundPosterOptions extends OutboundGuardOptions {
  /** For Retry-After given as a date. */
  now?: () => Date;
  /** Milliseconds from any fixed origin, for latency_ms. */
  monotonicMs?: () => number;
}

export interface OutboundPost {
  headers: Readonly<Record<string, string>>;
  body: string;
  /** Covers the connection, the headers and the part of the body that is read. */
  timeoutMs: number;
}

/** One attempt as a delivery log shows it. `error` set means the attempt failed, even with a status code. */
export interface OutboundResult {
  status_code: number | null;
  latency_ms: number;
  response_body: string | null;
  retry_after_s: number | null;
  error: string | null;
}

export interface OutboundPoster {
  /** The check at create and update: throws UnsafeOutboundUrl. */
  check(url: string): Promise<URL>;
  /** Never throws for a refused host, a network failure or a timeout: the result says what happened. */
  post(url: string, post: OutboundPost): Promise<OutboundResult>;
  /** Closes the kept-alive connections. */
  close(): Promise<void>;
}

function refusedAddresses(allow: AllowList): AddressCheck {
  return (host, addresses) => {
    if (addresses.length === 0) throw new UnsafeOutboundUrl(`host ${host} has no address`);
    for (const address of addresses) {
      const refusal = addressRefusal(host, address, allow);
      if (refusal === 'never') {
        throw new UnsafeOutboundUrl(
          `host ${host} is not allowed: it is (or resolves to) a link-local, cloud metadata or unspecified address, which is never reached`,
        );
      }
      if (refusal === 'private') {
        throw new UnsafeOutboundUrl(
          `host ${host} is not allowed: it is (or resolves to) a loopback or private address; the operator can allow it by listing it in OUTBOUND_ALLOWED_HOSTS`,
        );
      }
    }
  };
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeOutboundUrl('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeOutboundUrl('must use http or https');
  if (url.username || url.password) throw new UnsafeOutboundUrl('must not carry credentials');
  if (url.hostname === '') throw new UnsafeOutboundUrl('must name a host');
  return url;
}

/** The host as a socket is opened to it: an IPv6 literal without its brackets. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

async function checkUrl(raw: string, check: AddressCheck, resolve: HostResolver): Promise<URL> {
  const url = parseUrl(raw);
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new UnsafeOutboundUrl(`host ${host} does not resolve`);
    }
  }
  check(host, addresses);
  return url;
}

/**
 * http(s) only, no credentials in the URL, and every address the host resolves to passes the check;
 * throws UnsafeOutboundUrl. The name is resolved again when a connection opens.
 */
export function checkOutboundUrl(raw: string, options: OutboundGuardOptions): Promise<URL> {
  return checkUrl(raw, refusedAddresses(buildAllowList(options.allowedHosts)), options.resolve ?? systemResolver);
}

/**
 * Retry-After as seconds from `now`: a number of seconds, or an HTTP date (a past one is 0).
 * Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | readonly string[] | undefined | null, now: Date): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Number(raw);
  const at = Date.parse(raw);
  if (Number.isNaN(at) || !/[a-z]/i.test(raw)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

class TimedOut extends Error {}

/** What went wrong, in one line: the guard's own words, or the socket's code and message. */
function describeFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof TimedOut) return `timed out after ${timeoutMs} ms`;
  if (error instanceof UnsafeOutboundUrl) return error.message;
  if (error instanceof AggregateError && error.errors.length > 0) return describeFailure(error.errors[0], timeoutMs);
  if (error instanceof Error) {
    if (error.cause instanceof UnsafeOutboundUrl) return error.cause.message;
    const code = (error as NodeJS.ErrnoException).code;
    const message = error.message || error.name;
    return code && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

export function createOutboundPoster(options: OutboundPosterOptions): OutboundPoster {
  const resolve = options.resolve ?? systemResolver;
  const now = options.now ?? (() => new Date());
  const monotonicMs = options.monotonicMs ?? (() => performance.now());
  const check = refusedAddresses(buildAllowList(options.allowedHosts));
  // One pool for every endpoint: each socket is checked as it opens, so a kept-alive one has passed.
  const dispatcher = new Agent({ connect: buildGuardedConnector(resolve, check) });

  async function post(raw: string, { headers, body, timeoutMs }: OutboundPost): Promise<OutboundResult> {
    const started = monotonicMs();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimedOut()), timeoutMs);
    let status: number | null = null;
    let retryAfter: number | null = null;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    const result = (error: unknown): OutboundResult => {
      const text = keptBytes > 0 || status !== null ? decode(kept, keptBytes) : null;
      return {
        status_code: status,
        latency_ms: Math.max(0, Math.round(monotonicMs() - started)),
        response_body: text,
        retry_after_s: retryAfter,
        error: error === null ? null : describeFailure(controller.signal.aborted ? new TimedOut() : error, timeoutMs),
      };
    };
    try {
      const url = parseUrl(raw);
      // Redirects are not followed: undici's request only follows them with an interceptor.
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        dispatcher,
        signal: controller.signal,
      });
      status = response.statusCode;
      retryAfter = parseRetryAfter(response.headers['retry-after'], now());
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        kept.push(chunk);
        keptBytes += chunk.length;
        // Leaving the loop destroys the stream: the rest is never read into memory.
        if (keptBytes >= RESPONSE_BODY_LIMIT) break;
      }
      return result(null);
    } catch (error) {
      return result(error);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    check: (url) => checkUrl(url, check, resolve),
    post,
    close: () => dispatcher.close(),
  };
}

/** The first KiB as text, without a character cut in half at its end. */
function decode(chunks: readonly Buffer[], bytes: number): string {
  const head = Buffer.concat(chunks, bytes).subarray(0, RESPONSE_BODY_LIMIT);
  return new TextDecoder('utf-8').decode(head, { stream: true });
}
