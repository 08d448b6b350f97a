import { type Problem, ProblemError, UnreachableError } from './errors.js';

// The one place the client speaks HTTP: headers, JSON both ways, problem documents into
// ProblemError, network failures into UnreachableError. The work and classify clients are
// lists of routes over it.

/**
 * The part of `fetch` the client uses. The MCP server passes one built on Fastify's inject, so
 * its tool calls skip the network; anything that answers a WHATWG Response will do.
 */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** e.g. http://127.0.0.1:8080 (a trailing slash is fine). */
  baseUrl: string;
  /** An API token, sent as `Authorization: Bearer`. */
  token?: string | undefined;
  /** Under AUTH=off, who the caller is (the X-User header). Ignored when a token is given. */
  user?: string | undefined;
  fetch?: FetchLike | undefined;
  /** Sent with every request (a User-Agent, a trace id). */
  headers?: Record<string, string> | undefined;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  headers?: Record<string, string> | undefined;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  /** The parsed JSON body; undefined for 204 and 304. */
  body: T;
}

export type Requester = <T>(
  method: string,
  path: string,
  init?: {
    query?: object | undefined;
    body?: unknown;
    headers?: Record<string, string | undefined>;
    signal?: AbortSignal | undefined;
  },
) => Promise<Answer<T>>;

function queryString(query: object | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A body that is not a problem document (a proxy's HTML page) still becomes one. */
function asProblem(status: number, statusText: string, text: string): Problem {
  try {
    const parsed = JSON.parse(text) as Partial<Problem>;
    if (parsed && typeof parsed === 'object' && typeof parsed.detail === 'string') {
      return {
        type: 'about:blank',
        title: statusText,
        ...parsed,
        status: typeof parsed.status === 'number' ? parsed.status : status,
      } as Problem;
    }
  } catch {
    // not JSON: described below
  }
  const detail = text.trim().slice(0, 500) || `HTTP ${status}`;
  return { type: 'about:blank', title: statusText || `HTTP ${status}`, status, detail };
}

export function createRequester(options: ClientOptions): Requester {
  const base = options.baseUrl.replace(/\/+$/, '');
  const send: FetchLike = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const identity: Record<string, string> = options.token
    ? { authorization: `Bearer ${options.token}` }
    : options.user
      ? { 'x-user': options.user }
      : {};

  return async function request<T>(
    method: string,
    path: string,
    init: {
      query?: object | undefined;
      body?: unknown;
      headers?: Record<string, string | undefined>;
      signal?: AbortSignal | undefined;
    } = {},
  ): Promise<Answer<T>> {
    const url = `${base}${path}${queryString(init.query)}`;
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers, ...identity };
    for (const [name, value] of Object.entries(init.headers ?? {})) if (value !== undefined) headers[name] = value;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await send(url, {
        method,
        headers,
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
        ...(init.signal && { signal: init.signal }),
      });
    } catch (error) {
      // The caller's own abort is theirs to handle, not a network failure.
      if (init.signal?.aborted) throw error;
      throw new UnreachableError(base, { cause: error });
    }
    const text = await response.text();
    if (response.status >= 400) throw new ProblemError(asProblem(response.status, response.statusText, text));
    let body: T;
    try {
      body = (text === '' ? undefined : JSON.parse(text)) as T;
    } catch (error) {
      // Something answered, but not agentdesk (a web server on the wrong port, say).
      throw new UnreachableError(base, {
        cause: new Error(`the answer to ${method} ${path} is not JSON`, { cause: error }),
      });
    }
    return { status: response.status, headers: response.headers, body };
  };
}
