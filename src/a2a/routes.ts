import { AgentCard, A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { isV1JsonRpcMethod } from '@a2a-js/sdk/compat/v0_3';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ACCESS } from '../auth/contract.js';
import { PROBLEM_CONTENT_TYPE, ValidationError } from '../shared/errors.js';
import { MalformedJsonError } from '../shared/http/json-body.js';
import type { HttpApp } from '../shared/http/types.js';
import { withHeaders } from '../shared/http/openapi.js';
import { ProblemSchema, problemResponses } from '../shared/http/schemas.js';
import { A2A_PATHS } from './card.js';
import { type A2aRouteOptions, createA2aRequests, sendEventStream } from './per-request.js';
import { registerA2aRestRoutes } from './rest-routes.js';

// The A2A routes: the public agent card, JSON-RPC at /a2a through the SDK's transport handlers
// (v0.3 method names through its compatibility layer), HTTP+JSON under it (rest-routes.ts); the
// desk's handler (handler.ts) does the work as the caller.

const JsonRpcBodySchema = Type.Unknown({
  description: 'A JSON-RPC 2.0 request of A2A: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, …',
});
const JSON_RPC_RESPONSE = {
  description:
    'The JSON-RPC response (errors included, with the A2A codes), or for SendStreamingMessage and SubscribeToTask an event stream',
  content: { 'application/json': { schema: Type.Unknown() }, 'text/event-stream': { schema: Type.String() } },
};

const BAD_REQUEST_RESPONSE = {
  description: 'The body is not JSON (-32700): a JSON-RPC error. A request HTTP itself refuses is a problem document.',
  content: { 'application/json': { schema: Type.Unknown() }, [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
};

/** A body that is not JSON is JSON-RPC's parse error, as the SDK's own server answers it. */
function jsonRpcErrors(error: Error & { validation?: unknown }, _request: FastifyRequest, reply: FastifyReply) {
  const parse = error instanceof MalformedJsonError;
  if (!parse && error.validation === undefined && !(error instanceof ValidationError)) throw error;
  const code = parse ? A2A_ERROR_CODE.PARSE_ERROR : A2A_ERROR_CODE.INVALID_REQUEST;
  return reply
    .code(400)
    .type('application/json')
    .send({ jsonrpc: '2.0', id: null, error: { code, message: error.message } });
}

export async function registerA2aRoutes(app: HttpApp, options: A2aRouteOptions): Promise<void> {
  const tags = ['a2a'];
  const requests = createA2aRequests(app, options);

  app.get(
    A2A_PATHS.card,
    {
      config: { access: ACCESS.public },
      schema: {
        operationId: 'getAgentCard',
        tags,
        summary: "The A2A agent card: the desk's interfaces, security scheme and skills (one per work type)",
        response: { 200: withHeaders(Type.Unknown({ description: 'The agent card (A2A 1.0)' }), 'Cache-Control') },
      },
    },
    async (request, reply) => {
      const card = await requests.cardFor(request);
      return reply.header('cache-control', 'public, max-age=60').send(AgentCard.toJSON(card));
    },
  );

  app.post(
    A2A_PATHS.jsonRpc,
    {
      config: { access: ACCESS.submit },
      errorHandler: jsonRpcErrors,
      schema: {
        operationId: 'callAgentToAgent',
        tags,
        summary: 'A2A over JSON-RPC: tasks are the caller’s work items (docs/a2a.md)',
        description:
          'Send A2A-Version: 1.0 (absent: 0.3, whose method names the SDK’s compatibility layer takes). Roles as for POST /work; ' +
          'a caller sees and changes only its own tasks (admins: all).',
        body: JsonRpcBodySchema,
        response: { 200: JSON_RPC_RESPONSE, 400: BAD_REQUEST_RESPONSE, ...problemResponses(413, 415, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body as { id?: unknown; method?: unknown } | null;
      const id = typeof body?.id === 'string' || typeof body?.id === 'number' ? body.id : null;
      const card = await requests.cardFor(request);
      const context = new ServerCallContext({
        requestedVersion: (request.headers[A2A_VERSION_HEADER.toLowerCase()] as string | undefined) || undefined,
      });
      const legacy = !isV1JsonRpcMethod(body?.method);
      const mapError = legacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
        : JsonRpcTransportHandler.mapToJSONRPCError;
      try {
        validateVersion(context.requestedVersion, card, 'JSONRPC');
      } catch (error) {
        return { jsonrpc: '2.0', id, error: mapError(error) };
      }
      const { handler, stop } = requests.handlerFor(request, reply, card);
      const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
      const answer = await transport.handle(request.body as Record<string, unknown>, context);
      if (!(Symbol.asyncIterator in answer)) return answer;
      // A failure before the first event is an ordinary JSON-RPC error, not a stream of one.
      const events = answer[Symbol.asyncIterator]();
      let first: IteratorResult<unknown>;
      try {
        first = await events.next();
      } catch (error) {
        return { jsonrpc: '2.0', id, error: mapError(error) };
      }
      return sendEventStream(
        reply,
        events,
        first,
        stop,
        {
          event: (value) => value,
          error: (error) => ({ jsonrpc: '2.0', id, error: mapError(error) }),
        },
        requests.heartbeatMs,
      );
    },
  );
  await registerA2aRestRoutes(app, requests);
}
