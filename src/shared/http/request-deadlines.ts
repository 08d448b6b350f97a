import type { IncomingMessage, Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestLimits } from '../config/config.js';

// How long a client may take to send its request, and how many connections one address may hold. Only the
// receiving is bounded: once the body has arrived, a route may answer as slowly as it likes (the event
// stream, a claim's long poll, a question's wait).

/** Thrown into the body's stream when time runs out: the error handler answers it with a 408. */
export class RequestTimeoutError extends Error {
  readonly statusCode = 408;
  constructor(message: string) {
    super(message);
    this.name = 'RequestTimeoutError';
  }
}

/**
 * Node's own bounds, given to http.createServer. The headers come before any credential is
 * read, so they get the unauthenticated bound. Node's whole-request bound is only the backstop
 * for a body no route reads; it is checked on an interval, so the interval follows the bounds.
 */
export function serverTimeouts(
  limits: RequestLimits,
): Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'connectionsCheckingInterval'> {
  return {
    headersTimeout: limits.requestTimeoutUnauthenticatedMs,
    requestTimeout: limits.requestTimeoutMs + limits.requestTimeoutUnauthenticatedMs,
    connectionsCheckingInterval: Math.min(1_000, Math.max(10, Math.floor(limits.requestTimeoutUnauthenticatedMs / 4))),
  };
}

/**
 * Closes a new connection at once when its address already holds `max` open ones (0: no cap).
 * Nothing has been read yet, so there is no request to answer: the socket is destroyed.
 */
export function capConnectionsPerAddress(server: Server, max: number): void {
  if (max === 0) return;
  const open = new Map<string, number>();
  // Before Node's own listener, so a refused socket never reaches the HTTP parser.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

function expectsBody(request: FastifyRequest): boolean {
  if (request.raw.complete) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A `preParsing` hook: the body must arrive within the request bound, counted from its headers,
 * with no pause longer than the idle bound. When either runs out the answer is a 408 and the
 * connection closes (the refused rest is drained briefly first, so the client reads the 408).
 * A caller no credential identified gets the shorter bounds: a sign-in dripping a byte every few
 * seconds, a thousand times over, must not hold the process's file descriptors.
 * `authenticated` says whether a credential identified the caller (the access hook has run).
 */
export function createBodyDeadlines(limits: RequestLimits, authenticated: (request: FastifyRequest) => boolean) {
  return async function bodyDeadlines(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: Readable,
  ): Promise<Readable> {
    if (!expectsBody(request)) return payload;
    const known = authenticated(request);
    const totalMs = known ? limits.requestTimeoutMs : limits.requestTimeoutUnauthenticatedMs;
    const idleMs = known ? limits.bodyIdleTimeoutMs : limits.bodyIdleTimeoutUnauthenticatedMs;
    const { body, release } = withDeadlines(
      request.raw,
      payload,
      reply,
      Math.max(0, totalMs - reply.elapsedTime),
      idleMs,
    );
    releases.set(request, release);
    return body;
  };
}

/** How each request with a bounded body lets go of it. */
const releases = new WeakMap<FastifyRequest, () => void>();

/**
 * An `onSend` hook, added before the one that drains a refused body: once an answer is on its
 * way (a 413 or 415 sent before the body was read, say), nobody reads the body through the
 * bounds any more. Their timers stop, and the rest of the body is the drain's to read.
 */
export async function releaseBodyDeadlines(request: FastifyRequest): Promise<void> {
  releases.get(request)?.();
}

const ignore = () => {};

function withDeadlines(raw: IncomingMessage, payload: Readable, reply: FastifyReply, totalMs: number, idleMs: number) {
  const body = new PassThrough();
  // With no reader left (the answer went already, or never will) there is nobody to tell of a
  // timeout or a client gone; a reader still listening hears it too.
  body.on('error', ignore);
  const release = () => {
    finish();
    payload.unpipe(body);
    // Unpiped, the request stays paused; Node drops an unread rest only of a body nobody read,
    // so a kept connection would wait for it forever (neither busy nor idle: close hangs).
    if (!raw.complete) raw.resume();
  };
  const expire = (detail: string) => {
    release();
    reply.header('connection', 'close');
    // The parser reading the body answers the 408.
    body.destroy(new RequestTimeoutError(detail));
  };
  const total = setTimeout(() => expire(`The request body did not arrive within ${totalMs} ms`), totalMs);
  const idle = setTimeout(() => expire(`The request body paused for more than ${idleMs} ms`), idleMs);
  const onData = () => idle.refresh();
  const onError = (error: Error) => {
    finish();
    body.destroy(error);
  };
  // A client gone before its body ended leaves nobody to answer; the parser must not wait on.
  const onClose = () =>
    raw.complete ? finish() : onError(new Error('The client closed the connection before its body ended'));
  const finish = () => {
    clearTimeout(total);
    clearTimeout(idle);
    payload.off('data', onData).off('end', finish).off('error', onError);
    raw.off('close', onClose);
  };
  payload.on('data', onData).once('end', finish).once('error', onError);
  raw.once('close', onClose);
  payload.pipe(body);
  return { body, release };
}
