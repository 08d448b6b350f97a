import { randomId } from '../shared/db/ids.js';
import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify';
import type { Principal } from '../auth/index.js';
import type { HttpApp } from '../shared/http/types.js';

// Stopping the tools' inner API calls (through `app.inject`) when their agent stops listening or cancels:
// otherwise a claim waiting (wait_s) would take the next item for nobody, who would hold it until its lease
// ran out. inject brings neither: the inner request never sees its caller leave, nor a cancellation's POST.

const INNER_CALL_HEADER = 'x-agentdesk-mcp-call';
/**
 * How long an early cancellation waits for its call, and how long an answered call's id is
 * remembered so a late cancellation is not taken for an early one. Short, because a client
 * that starts again numbers its requests from the start again.
 */
const EARLY_CANCEL_MS = 10_000;
/** Bounds both memories: a caller sending cancellations for ids it never uses cannot grow them. */
const MAX_REMEMBERED = 10_000;

export interface InnerCalls {
  /**
   * An `inject` for one /mcp request: its caller's address, and its stop signal. Each inner request carries a
   * one-time id; a hook ties it to `stop` and, when that fires, closes the inner response's socket, which is
   * what a real client going away looks like to a route (the claim ends its wait on it).
   */
  injector(request: FastifyRequest, stop: AbortSignal): Pick<FastifyInstance, 'inject'>;
  /** Keeps `stop` under the caller and request id until `untrack` is called. */
  track(principal: Principal, requestId: unknown, stop: AbortController): () => void;
  /**
   * Stops the caller's request with that id (notifications/cancelled): now if it runs, as it starts if it has
   * not arrived yet, since the cancellation travels on its own connection and can overtake its call.
   */
  cancel(principal: Principal, requestId: unknown): void;
}

/** Requests of one caller: its token, or under AUTH=off the name it gives. */
function callerKey(principal: Principal, requestId: unknown): string {
  return `${principal.token_id ?? `user:${principal.name}`}\u0000${JSON.stringify(requestId)}`;
}

export function createInnerCalls(app: HttpApp): InnerCalls {
  const stops = new Map<string, AbortSignal>();
  const running = new Map<string, Set<AbortController>>();
  // Keys to the time they are forgotten, oldest first (a Map keeps insertion order).
  const cancelledEarly = new Map<string, number>();
  const answered = new Map<string, number>();
  const remember = (memory: Map<string, number>, key: string) => {
    memory.delete(key);
    memory.set(key, Date.now() + EARLY_CANCEL_MS);
    for (const [oldest, until] of memory) {
      if (memory.size <= MAX_REMEMBERED && until > Date.now()) break;
      memory.delete(oldest);
    }
  };
  const recalls = (memory: Map<string, number>, key: string) => {
    const until = memory.get(key);
    if (until === undefined) return false;
    memory.delete(key);
    return until > Date.now();
  };

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
        const id = randomId();
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
      if (recalls(cancelledEarly, key)) stop.abort();
      return () => {
        set.delete(stop);
        if (set.size === 0) running.delete(key);
        remember(answered, key);
      };
    },

    cancel(principal, requestId) {
      const key = callerKey(principal, requestId);
      const calls = running.get(key);
      if (calls) for (const stop of calls) stop.abort();
      else if (!recalls(answered, key)) remember(cancelledEarly, key);
    },
  };
}
