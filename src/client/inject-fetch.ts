import type { FastifyInstance, InjectOptions } from 'fastify';
import type { FetchLike } from './http.js';

// A FetchLike that hands each request to a Fastify app in the same process (`app.inject`), for a caller inside
// the service (the MCP server): the same routes, hooks and schemas as over the network, without a socket.

/**
 * The URL's host part is ignored. inject has no abort: a call whose signal fires is rejected at once, but the
 * route runs on (a long-polling claim until its wait_s ends).
 */
export function createInjectFetch(app: Pick<FastifyInstance, 'inject'>): FetchLike {
  return async (url, init) => {
    init.signal?.throwIfAborted();
    const target = new URL(url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const injected = app.inject({
      method: (init.method ?? 'GET') as InjectOptions['method'],
      url: `${target.pathname}${target.search}`,
      headers,
      ...(typeof init.body === 'string' && { payload: init.body }),
    });
    const response = init.signal
      ? await Promise.race([
          injected,
          new Promise<never>((_, reject) => {
            const signal = init.signal as AbortSignal;
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
        ])
      : await injected;
    const answerHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) answerHeaders.append(name, String(one));
    }
    const empty = response.statusCode === 204 || response.statusCode === 304;
    return new Response(empty ? null : response.rawPayload, {
      status: response.statusCode,
      statusText: response.statusMessage,
      headers: answerHeaders,
    });
  };
}
