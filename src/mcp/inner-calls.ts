import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify';
import type { Principal } from '../auth/authenticator.js';
import type { HttpApp } from '../shared/http.js';

// The tools' API calls run through `app.inject`, in this process. Two things do not come with
// inject and matter for an agent that stops listening while a claim waits (wait_s): the inner
// request never sees its caller leave (inject's own abort signal cannot reach a body already
// read), and a stateless endpoint gets a cancellation in a POST of its own, far from the call it
// cancels. Left alone, the waiting claim would take the next item for nobody, who would hold
// it until its lease ran out. So:
//   - each inner request carries a one-time id; a hook ties it to the /mcp request's stop
//     signal and, when that fires, closes the inner response's socket, which is what a real
//     client going away looks like to a route (the claim ends its wait on it);
//   - the /mcp requests in flight are kept by caller and JSON-RPC id, so a
//     notifications/cancelled stops the one it names.

const INNER_CALL_HEADER = 'x-agentdesk-mcp-call';

export interface InnerCalls {
  /** An `inject` for one /mcp request: its caller's address, and its stop signal. */
  injector(request: FastifyRequest, stop: AbortSignal): Pick<FastifyInstance, 'inject'>;
  /** Keeps `stop` under the caller and request id until `untrack` is called. */
  track(principal: Principal, requestId: unknown, stop: AbortController): () => void;
  /** Stops the caller's request with that id, if this instance runs it. */
  cancel(principal: Principal, requestId: unknown): void;
}

/** Requests of one caller: its token, or under AUTH=off the name it gives. */
function callerKey(principal: Principal, requestId: unknown): string {
  return `${principal.token_id ?? `user:${principal.name}`}\u0000${JSON.stringify(requestId)}`;
}

export function createInnerCalls(app: HttpApp): InnerCalls {
  const stops = new Map<string, AbortSignal>();
  const running = new Map<string, Set<AbortController>>();

  app.addHook('onRequest', async (request, reply) => {
    const id = request.headers[INNER_CALL_HEADER];
    if (id === undefined) return;
    delete request.headers[INNER_CALL_HEADER];
    const stop = typeof id === 'string' ? stops.get(id) : undefined;
    // Only ids this process handed out mean anything; one from outside names nothing.
    if (!stop) return;
    const leave = () => reply.raw.socket?.destroy(new Error('the MCP caller went away'));
    if (stop.aborted) return leave();
    stop.addEventListener('abort', leave, { once: true });
    reply.raw.once('close', () => stop.removeEventListener('abort', leave));
  });

  return {
    injector(request, stop) {
      const inject = async (options: InjectOptions) => {
        const id = randomUUID();
        stops.set(id, stop);
        try {
          return await app.inject({
            ...options,
            headers: { ...options.headers, [INNER_CALL_HEADER]: id },
            // The caller's address, so a failed credential counts against it and not against 127.0.0.1.
            remoteAddress: request.ip,
          });
        } finally {
          stops.delete(id);
        }
      };
      return { inject } as unknown as Pick<FastifyInstance, 'inject'>;
    },

    track(principal, requestId, stop) {
      const key = callerKey(principal, requestId);
      let set = running.get(key);
      if (!set) running.set(key, (set = new Set()));
      set.add(stop);
      return () => {
        set.delete(stop);
        if (set.size === 0) running.delete(key);
      };
    },

    cancel(principal, requestId) {
      for (const stop of running.get(callerKey(principal, requestId)) ?? []) stop.abort();
    },
  };
}
