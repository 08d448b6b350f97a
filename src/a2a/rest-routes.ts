import {
  A2A_CONTENT_TYPE,
  A2A_VERSION_HEADER,
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  taskStateFromJSON,
} from '@a2a-js/sdk';
import { RequestMalformedError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ACCESS } from '../auth/contract.js';
import { parseJsonBody } from '../shared/http/json-body.js';
import type { HttpApp } from '../shared/http/types.js';
import { A2A_PATHS } from './card.js';
import { LIST_PAGE } from './list.js';
import { type A2aRequests, sendEventStream } from './per-request.js';
import { a2aError, restError, restErrors } from './rest-errors.js';

// A2A's HTTP+JSON binding under /a2a: the same desk handler as the JSON-RPC binding, its requests
// and answers in the proto types' JSON, its errors in A2A's REST error body (google.rpc.Status)
// with the HTTP status the SDK's own server gives them, its streams as server-sent events.

const JSON_TYPES = ['application/json', A2A_CONTENT_TYPE] as const;
/** Task ids are the desk's item ids: never a ':', which starts the method in `{id}:cancel`. */
const TASK_ID = '(^[^:]+)';

function a2aAnswer(description: string) {
  return { description, content: { [A2A_CONTENT_TYPE]: { schema: Type.Unknown() } } };
}
const STREAM = {
  description: 'Server-sent events, each a StreamResponse: the task, then its status and artifact updates',
  content: { 'text/event-stream': { schema: Type.String() } },
};
const BAD_REQUEST = a2aError(
  'A request A2A refuses (INVALID_ARGUMENT: bad JSON, a bad field; FAILED_PRECONDITION: not cancelable, ended, unsupported, the A2A-Version)',
);
const NOT_FOUND = a2aError('No such task, or another caller’s (TaskNotFoundError)');
const UNSUPPORTED_TYPE = a2aError('Not application/json nor application/a2a+json (ContentTypeNotSupportedError)');

const VersionHeaders = Type.Object({
  'a2a-version': Type.Literal('1.0', { description: 'The A2A protocol version this binding speaks' }),
});
const TaskParams = Type.Object({ id: Type.String({ minLength: 1, pattern: '^[^:]+$' }) });
const AnyTaskParams = Type.Object({ id: Type.String({ minLength: 1 }) });
const ConfigParams = Type.Object({ id: Type.String({ minLength: 1 }), configId: Type.String({ minLength: 1 }) });
/** historyLength is a proto int32; at most 200 comments are given whatever it says. */
const HistoryLength = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });
const TASK_STATES = Object.keys(TaskState).filter((name) => name.startsWith('TASK_STATE_'));
// A misspelt parameter is refused, as on every route of the desk, rather than ignored.
const HistoryQuery = Type.Object({ historyLength: Type.Optional(HistoryLength) }, { additionalProperties: false });
const ListQuery = Type.Object(
  {
    contextId: Type.Optional(Type.String()),
    status: Type.Optional(Type.Enum(TASK_STATES)),
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_PAGE.max })),
    pageToken: Type.Optional(Type.String({ description: 'The nextPageToken of the page before' })),
    historyLength: Type.Optional(HistoryLength),
    statusTimestampAfter: Type.Optional(Type.String({ format: 'date-time' })),
    includeArtifacts: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const BodySchema = Type.Unknown({ description: 'A SendMessageRequest in its proto JSON' });

function parseSend(body: unknown): SendMessageRequest {
  let params: SendMessageRequest;
  try {
    params = SendMessageRequest.fromJSON(body ?? {});
  } catch (error) {
    throw new RequestMalformedError(`Not a SendMessageRequest: ${(error as Error).message}`);
  }
  if (!params.message) throw new RequestMalformedError('message is required');
  if (!params.message.messageId) throw new RequestMalformedError('message.messageId is required');
  return params;
}

export async function registerA2aRestRoutes(app: HttpApp, requests: A2aRequests): Promise<void> {
  const base = A2A_PATHS.rest;
  const tags = ['a2a'];
  const description =
    'A2A over HTTP+JSON (docs/a2a.md). Send A2A-Version: 1.0. Roles as for POST /work; a caller sees and changes only its own tasks (admins: all).';

  /** The card, the version check, the desk's handler as the caller: every route's first steps. */
  async function begin(request: FastifyRequest, reply: FastifyReply) {
    const card = await requests.cardFor(request);
    const context = new ServerCallContext({
      requestedVersion: (request.headers[A2A_VERSION_HEADER.toLowerCase()] as string | undefined) || undefined,
    });
    validateVersion(context.requestedVersion, card, 'HTTP+JSON');
    return { context, ...requests.handlerFor(request, reply, card) };
  }

  const json = (reply: FastifyReply, body: unknown) => reply.code(200).type(A2A_CONTENT_TYPE).send(body);

  async function stream(reply: FastifyReply, answer: AsyncGenerator<StreamResponse>, stop: AbortSignal) {
    const events = answer[Symbol.asyncIterator]();
    // A failure before the first event is an ordinary error answer (restErrors), not a stream of one.
    const first = await events.next();
    return sendEventStream(
      reply,
      events,
      first,
      stop,
      {
        event: (value) => StreamResponse.toJSON(value),
        error: (error) => restError(error)?.body ?? toRestErrorBody(error, 500),
      },
      requests.heartbeatMs,
    );
  }

  await app.register(async (plugin) => {
    const scope = plugin as unknown as HttpApp;
    // Both JSON media types; an empty body is an empty request (the SDK's client sends
    // Content-Type: application/json and no body to :cancel and :subscribe).
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser([...JSON_TYPES], { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, body === '' ? undefined : parseJsonBody(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    const route = { config: { access: ACCESS.submit }, errorHandler: restErrors } as const;
    const common = { tags, description, headers: VersionHeaders };

    scope.post(
      `${base}/message::send`,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'sendAgentToAgentMessage',
          summary: 'SendMessage: a new task (a work item of the caller’s), or a message for one',
          consumes: [...JSON_TYPES],
          body: BodySchema,
          response: {
            200: a2aAnswer('A SendMessageResponse: the task'),
            400: BAD_REQUEST,
            404: NOT_FOUND,
            415: UNSUPPORTED_TYPE,
          },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        const result = await handler.sendMessage(parseSend(request.body), context);
        const payload =
          'messageId' in result
            ? { $case: 'message' as const, value: result }
            : { $case: 'task' as const, value: result };
        return json(reply, SendMessageResponse.toJSON({ payload }));
      },
    );
    scope.post(
      `${base}/message::stream`,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'streamAgentToAgentMessage',
          summary: 'SendStreamingMessage: as SendMessage, answered with the task’s events until it ends',
          consumes: [...JSON_TYPES],
          body: BodySchema,
          response: { 200: STREAM, 400: BAD_REQUEST, 404: NOT_FOUND, 415: UNSUPPORTED_TYPE },
        },
      },
      async (request, reply) => {
        const { handler, context, stop } = await begin(request, reply);
        return stream(reply, handler.sendMessageStream(parseSend(request.body), context), stop);
      },
    );

    scope.get(
      `${base}/tasks`,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'listAgentToAgentTasks',
          summary: 'ListTasks: the caller’s tasks, newest first',
          querystring: ListQuery,
          response: { 200: a2aAnswer('A ListTasksResponse'), 400: BAD_REQUEST },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        const query = request.query;
        const result = await handler.listTasks(
          {
            tenant: '',
            contextId: query.contextId ?? '',
            status: query.status ? (taskStateFromJSON(query.status) as TaskState) : TaskState.TASK_STATE_UNSPECIFIED,
            pageSize: query.pageSize,
            pageToken: query.pageToken ?? '',
            historyLength: query.historyLength,
            statusTimestampAfter: query.statusTimestampAfter,
            includeArtifacts: query.includeArtifacts,
          },
          context,
        );
        const body = ListTasksResponse.toJSON(result) as { tasks?: Array<Record<string, unknown>> };
        // The proto JSON leaves out empty lists; a caller that asked for artifacts gets the field.
        if (query.includeArtifacts) body.tasks = (body.tasks ?? []).map((task) => ({ artifacts: [], ...task }));
        return json(reply, { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0, ...body });
      },
    );

    scope.get(
      `${base}/tasks/:id`,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'getAgentToAgentTask',
          summary: 'GetTask: one of the caller’s tasks, with its latest history',
          params: AnyTaskParams,
          querystring: HistoryQuery,
          response: { 200: a2aAnswer('The Task'), 400: BAD_REQUEST, 404: NOT_FOUND },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        const { id } = request.params;
        const task = await handler.getTask({ id, tenant: '', historyLength: request.query.historyLength }, context);
        return json(reply, Task.toJSON(task));
      },
    );

    scope.post(
      `${base}/tasks/:id${TASK_ID}::cancel`,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'cancelAgentToAgentTask',
          summary: 'CancelTask: while nobody has taken it (a task in progress is not cancelable)',
          consumes: [...JSON_TYPES],
          params: TaskParams,
          response: { 200: a2aAnswer('The Task, CANCELED'), 400: BAD_REQUEST, 404: NOT_FOUND, 415: UNSUPPORTED_TYPE },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        const task = await handler.cancelTask({ id: request.params.id, tenant: '', metadata: undefined }, context);
        return json(reply, Task.toJSON(task));
      },
    );

    // SubscribeToTask answers GET and POST, as the SDK's own server does.
    for (const method of ['GET', 'POST'] as const) {
      scope.route({
        method,
        url: `${base}/tasks/:id${TASK_ID}::subscribe`,
        ...route,
        schema: {
          ...common,
          operationId: method === 'GET' ? 'subscribeToAgentToAgentTask' : 'subscribeToAgentToAgentTaskByPost',
          summary: 'SubscribeToTask: the task, then its events until it ends',
          ...(method === 'POST' && { consumes: [...JSON_TYPES] }),
          params: TaskParams,
          response: {
            200: STREAM,
            400: BAD_REQUEST,
            404: NOT_FOUND,
            ...(method === 'POST' && { 415: UNSUPPORTED_TYPE }),
          },
        },
        handler: async (request, reply) => {
          const { handler, context, stop } = await begin(request, reply);
          const { id } = request.params as { id: string };
          return stream(reply, handler.resubscribe({ id, tenant: '' }, context), stop);
        },
      });
    }

    scope.get(
      `${base}/extendedAgentCard`,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'getExtendedAgentCard',
          summary: 'GetExtendedAgentCard: the same card as the public one',
          response: { 200: a2aAnswer('The AgentCard'), 400: BAD_REQUEST },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        return json(reply, AgentCard.toJSON(await handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, context)));
      },
    );

    // Push notification configs (push.ts): made 201, deleted 204, as the SDK's own server answers.
    const pushBase = `${base}/tasks/:id/pushNotificationConfigs`;
    const pushAnswers = { 400: BAD_REQUEST, 404: NOT_FOUND };
    scope.post(
      pushBase,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'createAgentToAgentPushConfig',
          summary: 'CreateTaskPushNotificationConfig: the task’s changes POSTed to a url, signed (docs/a2a.md)',
          params: AnyTaskParams,
          consumes: [...JSON_TYPES],
          body: Type.Unknown({ description: 'A TaskPushNotificationConfig in its proto JSON' }),
          response: { 201: a2aAnswer('The config as kept'), ...pushAnswers, 415: UNSUPPORTED_TYPE },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        const { id } = request.params as { id: string };
        let config: TaskPushNotificationConfig;
        try {
          config = TaskPushNotificationConfig.fromJSON({ ...((request.body as object | undefined) ?? {}), taskId: id });
        } catch (error) {
          throw new RequestMalformedError(`Not a TaskPushNotificationConfig: ${(error as Error).message}`);
        }
        const made = await handler.createTaskPushNotificationConfig(config, context);
        return reply.code(201).type(A2A_CONTENT_TYPE).send(TaskPushNotificationConfig.toJSON(made));
      },
    );
    scope.get(
      pushBase,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'listAgentToAgentPushConfigs',
          summary: 'ListTaskPushNotificationConfigs: a task’s configs, in one page',
          params: AnyTaskParams,
          response: { 200: a2aAnswer('The configs (credentials never read back)'), ...pushAnswers },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        const { id } = request.params as { id: string };
        const list = await handler.listTaskPushNotificationConfigs(
          { taskId: id, pageSize: 0, pageToken: '', tenant: '' },
          context,
        );
        return json(reply, ListTaskPushNotificationConfigsResponse.toJSON(list));
      },
    );
    scope.get(
      `${pushBase}/:configId`,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'getAgentToAgentPushConfig',
          summary: 'GetTaskPushNotificationConfig: one config of a task',
          params: ConfigParams,
          response: { 200: a2aAnswer('The config (credentials never read back)'), ...pushAnswers },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        const { id, configId } = request.params as { id: string; configId: string };
        const config = await handler.getTaskPushNotificationConfig({ taskId: id, id: configId, tenant: '' }, context);
        return json(reply, TaskPushNotificationConfig.toJSON(config));
      },
    );
    scope.delete(
      `${pushBase}/:configId`,
      {
        ...route,
        schema: {
          ...common,
          operationId: 'deleteAgentToAgentPushConfig',
          summary: 'DeleteTaskPushNotificationConfig: the config and its delivery log go',
          params: ConfigParams,
          response: { 204: Type.Null({ description: 'Deleted' }), ...pushAnswers },
        },
      },
      async (request, reply) => {
        const { handler, context } = await begin(request, reply);
        const { id, configId } = request.params as { id: string; configId: string };
        await handler.deleteTaskPushNotificationConfig({ taskId: id, id: configId, tenant: '' }, context);
        return reply.code(204).send(null);
      },
    );
  });
}
