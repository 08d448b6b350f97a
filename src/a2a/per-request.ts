import type { AgentCard } from '@a2a-js/sdk';
import { SSE_HEADERS, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../shared/http/types.js';
import type { Cards } from './card.js';
import { callerOf } from './desk.js';
import { type HandlerDeps, createDeskHandler } from './handler.js';

// What every A2A request of both bindings (JSON-RPC, HTTP+JSON) sets up: the card as the caller
// reached it, the desk's handler as the caller, a stop signal that the client leaving or the
// server closing fires, and the event stream written as server-sent events.

export interface A2aRouteOptions extends Omit<HandlerDeps, 'card' | 'stop' | 'cancelOwn'> {
  cards: Cards;
  /** PUBLIC_URL; null: the address the caller reached. */
  publicUrl: string | null;
  cancelOwn: (id: string, principal: NonNullable<FastifyRequest['principal']>) => ReturnType<HandlerDeps['cancelOwn']>;
  /** How often a quiet stream gets a comment line, so proxies do not close it while a task waits. */
  heartbeatMs?: number;
}

const HEARTBEAT_MS = 15_000;

export interface A2aRequest {
  handler: A2ARequestHandler;
  stop: AbortSignal;
}

export function createA2aRequests(app: HttpApp, options: A2aRouteOptions) {
  // Streams and blocking sends still running: a closing server ends them, or it would wait for them.
  const running = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const stop of running) stop.abort();
  });

  function cardFor(request: FastifyRequest): Promise<AgentCard> {
    return options.cards.card(options.publicUrl ?? `${request.protocol}://${request.host}`);
  }

  /** The desk's handler for this request, as its caller; it stops when the client leaves. */
  function handlerFor(request: FastifyRequest, reply: FastifyReply, card: AgentCard): A2aRequest {
    const stop = new AbortController();
    running.add(stop);
    reply.raw.once('close', () => {
      stop.abort();
      running.delete(stop);
    });
    const principal = request.principal!;
    const handler = createDeskHandler(callerOf(app, request), {
      ...options,
      card,
      stop: stop.signal,
      cancelOwn: (task) => options.cancelOwn(task, principal),
    });
    return { handler, stop: stop.signal };
  }

  return { cardFor, handlerFor, heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS };
}

export type A2aRequests = ReturnType<typeof createA2aRequests>;

/**
 * Writes an event stream whose first event has already been read (a failure before it is the
 * binding's ordinary error answer, not a stream of one). A later failure is an `error` event.
 */
export async function sendEventStream<T>(
  reply: FastifyReply,
  events: AsyncIterator<T>,
  first: IteratorResult<T>,
  stop: AbortSignal,
  encode: { event: (value: T) => unknown; error: (error: unknown) => unknown },
  heartbeatMs: number,
): Promise<FastifyReply> {
  reply.hijack();
  reply.raw.writeHead(200, SSE_HEADERS);
  const heartbeat = setInterval(() => reply.raw.write(': keep-alive\n\n'), heartbeatMs);
  try {
    if (!first.done) reply.raw.write(formatSSEEvent(encode.event(first.value)));
    for (let next = await events.next(); !next.done; next = await events.next()) {
      reply.raw.write(formatSSEEvent(encode.event(next.value)));
    }
  } catch (error) {
    if (!stop.aborted) reply.raw.write(formatSSEErrorEvent(encode.error(error)));
  } finally {
    clearInterval(heartbeat);
    await events.return?.(undefined);
    reply.raw.end();
  }
  return reply;
}
