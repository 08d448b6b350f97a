import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_CONTENT_TYPE, problem } from '../errors.js';

// The answers Fastify's router and Node's HTTP parser write by themselves (a bad percent-escape,
// an over-long path parameter, huge headers, a lower-case method) bypass the error handler and
// come in their own formats. These handlers make them problem+json like every other error.

/** Fastify's `frameworkErrors`: router failures before any route runs. */
export function onFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const body =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? // No resource has an id or a name that long: the same answer as any id that names nothing.
        problem(404, 'No such resource')
      : error.code === 'FST_ERR_BAD_URL'
        ? problem(400, 'The path is not valid: a percent-escape in it does not decode to UTF-8')
        : problem(400, 'The request could not be routed');
  void reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

interface ParserError extends Error {
  code?: string;
}

function clientProblem(error: ParserError): ReturnType<typeof problem> {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return problem(431, 'The request headers are larger than this server accepts');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problem(408, 'The request took too long to arrive');
    case 'HPE_INVALID_METHOD':
      return problem(400, 'The request method is not valid (methods are upper-case, e.g. GET)');
    default:
      return problem(400, 'The request is not valid HTTP');
  }
}

/** Fastify's `clientErrorHandler`: Node could not parse the request, so there is no reply object. */
export function onClientError(error: ParserError, socket: Socket): void {
  // A reset or an already closed socket has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const body = clientProblem(error);
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? 'Error'}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        'Connection: close\r\n\r\n' +
        text,
    );
  }
  socket.destroy(error);
}

/** One registered route, its path turned into a matcher for concrete request paths. */
interface RoutePattern {
  methods: Set<string>;
  matcher: RegExp;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One segment of a route as the router reads it: `::` a literal colon, `:name(regex)` a constrained parameter. */
function segmentPattern(segment: string): string {
  if (segment === '*') return '.*';
  let pattern = '';
  let at = 0;
  while (at < segment.length) {
    if (segment.startsWith('::', at)) {
      pattern += ':';
      at += 2;
    } else if (segment[at] === ':') {
      at += /^:\w*/.exec(segment.slice(at))![0].length;
      const close = segment[at] === '(' ? segment.indexOf(')', at) : -1;
      pattern += close === -1 ? '[^/]+' : `(?:${segment.slice(at + 1, close).replace(/^\^|\$$/g, '')})`;
      if (close !== -1) at = close + 1;
    } else {
      pattern += escapeRegExp(segment[at]!);
      at += 1;
    }
  }
  return pattern;
}

function patternFor(url: string): RegExp {
  return new RegExp(`^${url.split('/').map(segmentPattern).join('/')}$`);
}

/**
 * Remembers which methods each route path accepts, so a request that only missed on its method
 * gets a 405 with Allow instead of a 404. Feed it from an `onRoute` hook.
 */
export function createMethodIndex() {
  const byUrl = new Map<string, RoutePattern>();
  return {
    add(method: string | string[], url: string): void {
      let entry = byUrl.get(url);
      if (!entry) {
        entry = { methods: new Set(), matcher: patternFor(url) };
        byUrl.set(url, entry);
      }
      for (const one of Array.isArray(method) ? method : [method]) entry.methods.add(one.toUpperCase());
    },
    /** The methods some route accepts at this path, sorted; empty when no route has the path. */
    allowed(path: string): string[] {
      const methods = new Set<string>();
      for (const entry of byUrl.values()) {
        if (entry.matcher.test(path)) for (const method of entry.methods) methods.add(method);
      }
      return [...methods].sort();
    },
  };
}

/** How much of a refused body is read and thrown away, at most, before the connection closes. */
const LINGER_BYTES = 256 * 1024 * 1024;
const LINGER_MS = 5_000;
/** A client that stops sending for this long is not waited for. */
const LINGER_IDLE_MS = 1_000;

/**
 * An `onSend` hook. Fastify answers a body it refuses before reading it (over the limit, or of a
 * type it does not take) and closes the connection; a client still sending then meets a reset
 * (EPIPE) instead of the answer, which Node's fetch and Python's http.client report as a failed
 * connection. So, as nginx's lingering close does, the rest of such a body is read and dropped
 * first, within a bound of bytes and time, and only then is the answer sent and the connection
 * closed. Requests whose body was read, and answers that keep the connection (Node drops the
 * unread rest of the body itself then), pass through at the cost of two property reads.
 */
export async function lingerOverRefusedBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.raw.complete || reply.getHeader('connection') !== 'close') return;
  await drain(request.raw);
}

function drain(message: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      clearTimeout(idle);
      clearTimeout(overall);
      message.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > LINGER_BYTES) return done();
      idle.refresh();
    };
    const overall = setTimeout(done, LINGER_MS);
    const idle = setTimeout(done, LINGER_IDLE_MS);
    message.on('data', onData).once('end', done).once('close', done).once('error', done);
    message.resume();
  });
}
