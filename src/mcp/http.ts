import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { hostName } from '../auth/index.js';
import { ACCESS, CSRF_HEADER } from '../auth/contract.js';
import { createInjectFetch } from '../client/inject-fetch.js';
import { createWorkClient } from '../client/work-client.js';
import { type AuthConfig, isLoopbackHost } from '../shared/config/config.js';
import { PROBLEM_CONTENT_TYPE, ValidationError, problem } from '../shared/errors.js';
import { MalformedJsonError } from '../shared/http/json-body.js';
import type { HttpApp } from '../shared/http/types.js';
import { ProblemSchema, problemResponses } from '../shared/http/schemas.js';
import { createInnerCalls } from './inner-calls.js';
import { createMcpServer } from './server.js';
import type { Caller } from './tools.js';

// MCP over Streamable HTTP at /mcp, stateless: each POST builds a server for its caller, answers in JSON, and
// is gone. Why stateless: docs/design-decisions.md, "Interfaces".

export interface McpRouteOptions {
  auth: AuthConfig;
  /** HOST: the address the service listens on. */
  host: string;
}

const JSON_RPC_MESSAGE = Type.Object({ jsonrpc: Type.Literal('2.0') }, { additionalProperties: true });
/** Messages in one batch: each may start tool calls, so a batch is bounded like a page. */
export const MAX_MCP_BATCH = 100;
const McpBodySchema = Type.Union(
  [JSON_RPC_MESSAGE, Type.Array(JSON_RPC_MESSAGE, { minItems: 1, maxItems: MAX_MCP_BATCH })],
  {
    description: 'A JSON-RPC message of the Model Context Protocol (or a batch of them)',
  },
);
interface JsonRpcMessage {
  method?: string;
  id?: string | number;
  params?: { requestId?: unknown };
}
const JsonRpcErrorSchema = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Null(),
  error: Type.Object({ code: Type.Integer(), message: Type.String() }),
});
const BAD_REQUEST_RESPONSE = {
  description:
    'The body is not JSON (-32700) or not a JSON-RPC message (-32600): a JSON-RPC error. ' +
    'A request HTTP itself refuses (a Content-Length that does not match) is a problem document.',
  content: { 'application/json': { schema: JsonRpcErrorSchema }, [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
};
const NAME_RE = /^[A-Za-z0-9_.@-]{1,64}$/;
/** The transport reads only these request headers (and the Host/Origin checks are ours). */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id'] as const;
/** The client's requests never leave the process; the host part of this URL is never used. */
const INNER_BASE_URL = 'http://localhost';

function refuse(reply: FastifyReply, status: number, detail: string): FastifyReply {
  return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(problem(status, detail));
}

/**
 * DNS rebinding, as the MCP transport specification and the SDK's guide describe it: a page on
 * another site must not reach a desk on this machine through a name that resolves here. The
 * service-wide hook already holds AUTH=off desks to loopback names and ALLOWED_HOSTS; /mcp also
 * holds token desks to them (and to HOST) unless HOST is a wildcard with no ALLOWED_HOSTS, where
 * nothing says which names are ours and the bearer token is the protection. An Origin, when a
 * browser sends one, must be this very origin, on every method (GET included). The transport's
 * own allowedHosts/allowedOrigins are not used: SDK 1.32 deprecates them for middleware like
 * this, and they compare the Host with its port, exactly, where we compare names.
 */
function createRebindingGuard({ auth, host }: McpRouteOptions) {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const checkHost = auth.mode === 'tokens' && (!wildcard || auth.allowedHosts.length > 0);
  const served = new Set([...auth.allowedHosts, ...(wildcard ? [] : [hostName(host) ?? host])]);

  return async function guard(request: FastifyRequest, reply: FastifyReply) {
    if (checkHost) {
      const name = hostName(request.headers.host);
      if (name === null || !(isLoopbackHost(name) || served.has(name))) {
        return refuse(
          reply,
          421,
          'This MCP endpoint answers only to a loopback address, HOST, or a name in ALLOWED_HOSTS.',
        );
      }
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      let same: boolean;
      try {
        const from = new URL(origin);
        same = from.host === new URL(`${from.protocol}//${request.headers.host ?? ''}`).host;
      } catch {
        same = false;
      }
      if (!same) return refuse(reply, 403, 'Cross-origin requests to /mcp are refused.');
    }
  };
}

/**
 * With AUTH=off the tools act as the agent X-User names. Checked after the body is parsed, so a
 * body that is not JSON is still a 400 and every validation failure a 422, in either order.
 */
function createAgentHeaderCheck({ auth }: McpRouteOptions) {
  return async function agentHeader(request: FastifyRequest, reply: FastifyReply) {
    if (auth.mode !== 'off') return;
    const user = request.headers['x-user'];
    if (typeof user !== 'string' || !NAME_RE.test(user)) {
      // A missing or malformed header is a validation failure like any other: 422 naming it.
      const message = 'is required with AUTH=off: it names the agent the tools act as (1–64 of A–Z a–z 0–9 _ . @ -)';
      return reply
        .code(422)
        .type(PROBLEM_CONTENT_TYPE)
        .send(problem(422, `X-User ${message}`, { errors: [{ field: 'x-user', message }] }));
    }
  };
}

/** What the inner calls present: the very credential the caller presented to /mcp. */
function credentialsOf(request: FastifyRequest, mode: AuthConfig['mode']) {
  if (mode === 'off') return { user: request.principal!.name };
  const bearer = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  if (bearer) return { token: bearer[1] as string };
  // A signed-in browser: its cookie, and the CSRF header it sent (the hook checked it).
  const headers: Record<string, string> = {};
  if (request.headers.cookie) headers.cookie = request.headers.cookie;
  const csrf = request.headers[CSRF_HEADER];
  if (typeof csrf === 'string') headers[CSRF_HEADER] = csrf;
  return { headers };
}

function transportRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(`${INNER_BASE_URL}/mcp`, { method: 'POST', headers });
}

/**
 * The transport's own refusals (406 without the right Accept, a malformed JSON-RPC message) are
 * JSON-RPC error objects; ours are problem documents. This one is both: a problem document
 * whose extension members are the JSON-RPC error, so either kind of reader finds its fields.
 */
async function asProblem(response: Response): Promise<ReturnType<typeof problem>> {
  const text = await response.text();
  let rpc: { error?: { code?: number; message?: string }; id?: unknown } = {};
  try {
    rpc = JSON.parse(text) as typeof rpc;
  } catch {
    // not JSON: the status says enough
  }
  const detail = rpc.error?.message ?? `The MCP request was refused (${response.status})`;
  return problem(response.status, detail, {
    jsonrpc: '2.0',
    id: rpc.id ?? null,
    error: { code: rpc.error?.code ?? -32000, message: detail },
  });
}

/** JSON-RPC's own codes for a body that is not JSON, and for JSON that is not a JSON-RPC message. */
export const JSON_RPC_ERRORS = { parse: -32700, invalidRequest: -32600 } as const;

/**
 * A JSON-RPC client reads JSON-RPC errors, not problem documents: a body that is not JSON is
 * -32700 and one that is not a JSON-RPC message -32600, as the transport itself answers them
 * (400, no id). Everything else (413, 415, the access hook's refusals) stays a problem document.
 */
function jsonRpcErrors(
  error: Error & { validation?: unknown },
  _request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const code =
    error instanceof MalformedJsonError
      ? JSON_RPC_ERRORS.parse
      : error.validation !== undefined || error instanceof ValidationError
        ? JSON_RPC_ERRORS.invalidRequest
        : null;
  // Thrown on, a framework error reaches the service's handler and becomes a problem document.
  if (code === null) throw error;
  const message =
    code === JSON_RPC_ERRORS.parse ? `Parse error: ${error.message}` : `Invalid Request: ${error.message}`;
  return reply.code(400).type('application/json').send({ jsonrpc: '2.0', id: null, error: { code, message } });
}

/**
 * The transport's refusal of a message it cannot read. It calls that a parse error (-32700),
 * but the body it was given had parsed: in JSON-RPC's terms it is an Invalid Request.
 */
async function asInvalidRequest(response: Response) {
  let message = 'Invalid JSON-RPC message';
  try {
    const rpc = (await response.json()) as { error?: { message?: string } };
    message = rpc.error?.message?.replace(/^Parse error: /, '') ?? message;
  } catch {
    // not JSON: the generic message will do
  }
  return {
    jsonrpc: '2.0',
    id: null,
    error: { code: JSON_RPC_ERRORS.invalidRequest, message: `Invalid Request: ${message}` },
  };
}

/**
 * The credential names the caller on every request and the tools keep no state, so nothing a session would
 * hold is worth holding: no sticky routing, nothing lost at a restart, no session id to steal or expire.
 * Stateless gives up the server-to-client stream (GET), which these tools do not need: GET and DELETE
 * answer 405, as the transport specification allows.
 */
export function registerMcpRoutes(app: HttpApp, options: McpRouteOptions): void {
  const guard = createRebindingGuard(options);
  const inner = createInnerCalls(app);
  const tags = ['mcp'];
  const config = { access: ACCESS.read };

  app.post(
    '/mcp',
    {
      config,
      onRequest: guard,
      preValidation: createAgentHeaderCheck(options),
      errorHandler: jsonRpcErrors,
      schema: {
        operationId: 'callMcp',
        tags,
        summary: 'Model Context Protocol over Streamable HTTP (stateless; answers in JSON): the agent tools',
        description:
          'Send Accept: application/json, text/event-stream. The tools act as the agent of the token (with AUTH=off, of X-User) and call the API with the same credential. ' +
          `A batch holds at most ${MAX_MCP_BATCH} messages. Stateless: GET and DELETE /mcp answer 405 with Allow: POST.`,
        body: McpBodySchema,
        response: {
          200: Type.Unknown({ description: 'The JSON-RPC response(s)' }),
          202: Type.Null({ description: 'Only notifications (or responses) were sent: accepted, with no body' }),
          400: BAD_REQUEST_RESPONSE,
          ...problemResponses(406, 413, 415, 421, 422),
        },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const caller: Caller = { agent: principal.agent ?? principal.name, role: principal.role };
      const messages = (Array.isArray(request.body) ? request.body : [request.body]) as JsonRpcMessage[];
      for (const message of messages) {
        if (message.method === 'notifications/cancelled') inner.cancel(principal, message.params?.requestId);
      }

      // Fires when the caller hangs up or cancels: the server ends, and with it the tool calls.
      const stop = new AbortController();
      const stopped = new Promise<null>((resolve) =>
        stop.signal.addEventListener('abort', () => resolve(null), { once: true }),
      );
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) stop.abort();
      });
      // A caller that hung up while its request was checked has already closed: no event will come.
      if (request.raw.socket?.destroyed === true) stop.abort();
      const untrack = messages
        .filter((message) => message.method !== undefined && message.id !== undefined)
        .map((message) => inner.track(principal, message.id, stop));
      const client = createWorkClient({
        baseUrl: INNER_BASE_URL,
        ...credentialsOf(request, options.auth.mode),
        // Over `app.inject`: no socket, and every call passes the same hooks (credential, role, validation).
        fetch: createInjectFetch(inner.injector(request, stop.signal)),
      });
      const server = createMcpServer({
        client,
        caller: async () => caller,
        onError: (error) => request.log.debug({ err: { message: error.message } }, 'mcp protocol error'),
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
      // Closing a server that answered has nothing left to release (no stream, no timer), and
      // its close builds an error with a stack: only one that did not answer is closed.
      let answered = false;
      try {
        await server.connect(transport);
        const response = await Promise.race([
          transport.handleRequest(transportRequest(request), { parsedBody: request.body }),
          stopped,
        ]);
        // Cancelled or gone: no answer is owed (the specification says a cancelled request gets none).
        if (response === null) return (reply as FastifyReply).code(202).send();
        if (response.status === 400)
          return reply
            .code(400)
            .type('application/json')
            .send(await asInvalidRequest(response));
        if (response.status >= 400) {
          const body = await asProblem(response);
          return (reply as FastifyReply).code(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
        }
        (reply as FastifyReply).code(response.status);
        const type = response.headers.get('content-type');
        if (type) reply.type(type);
        const text = await response.text();
        answered = true;
        // A notification's 202 has no body at all, as the transport specification says.
        return text === '' ? (reply as FastifyReply).send() : reply.send(text);
      } finally {
        for (const done of untrack) done();
        if (!answered) await server.close();
      }
    },
  );

  // Stateless: no stream for the server to speak first on, and no session to end. GET and
  // DELETE are not routes at all, so they get the service's 405 with `Allow: POST`, as the
  // transport specification permits.
}
