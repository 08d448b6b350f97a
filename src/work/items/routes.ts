import { Type } from 'typebox';
import { actingAgent, assertMayDispatch, requireActingAgent } from '../../auth/index.js';
import { ACCESS } from '../../auth/contract.js';
import type { HttpApp } from '../../shared/http/types.js';
import { withHeaders } from '../../shared/http/openapi.js';
import { problemResponses } from '../../shared/http/schemas.js';
import type { ProjectService } from '../projects/service.js';
import type { ClaimService } from '../agent-loop/claims.js';
import type { VersionPrecondition } from './changes.js';
import { etagOf } from './view.js';
import { OUTCOME_OF_STATUS } from './lifecycle.js';
import {
  AgentParamsSchema,
  AgentWorkQuerySchema,
  CountsQuerySchema,
  CreateProjectSchema,
  ClaimSchema,
  CreateWorkItemSchema,
  type FinishRequest,
  HeartbeatSchema,
  HistoryEntrySchema,
  IfMatchHeadersSchema,
  IfNoneMatchHeadersSchema,
  ListWorkQuerySchema,
  MAX_PAGE_SIZE,
  ProjectIdParamsSchema,
  ProjectSchema,
  StatusCountsSchema,
  SubmitHeadersSchema,
  UpdateProjectSchema,
  type UpdateWorkItem,
  UpdateWorkItemSchema,
  WorkIdParamsSchema,
  WorkItemDetailSchema,
  WorkItemSchema,
  WorkItemSummarySchema,
} from '../api-contract.js';
import { type WorkPage, type WorkService, actorFor } from './service.js';
import { nextLink } from '../../shared/http/paging.js';

// The routes of /work and /projects: thin, each parses its request and calls one service function.

/**
 * If-Match as a set of versions: `*`, or the strong entity tags listed. A weak or malformed
 * tag matches nothing, so the change is refused rather than applied on a guess.
 */
export function parseIfMatch(header: string | undefined): VersionPrecondition | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return { any: true };
  const versions = [...header.matchAll(/(?:^|,)\s*"(\d{1,9})"\s*(?=,|$)/g)].map((match) => Number(match[1]));
  const listed = header.split(',').filter((tag) => tag.trim() !== '').length;
  // Tags that are not strong entity tags (`2`, `W/"2"`) are named in the refusal: the caller
  // then learns that the tag must be quoted, not that the item moved on.
  return { any: false, versions, ...(versions.length < listed && { malformed: true }) };
}

/** The PATCH a claim's `finish` stands for. */
function finishingPatch({ status, notes }: FinishRequest, agent: string): UpdateWorkItem {
  return { status, outcome: OUTCOME_OF_STATUS[status], agent, ...(notes !== undefined && { notes }) };
}

function finishingPrecondition({ version }: FinishRequest): VersionPrecondition | undefined {
  return version === undefined ? undefined : { any: false, versions: [version] };
}

/** If-None-Match on a read: true when the caller already holds the current version. */
function holdsCurrent(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export function registerWorkRoutes(app: HttpApp, work: WorkService, claims: ClaimService): void {
  const tags = ['work items'];

  function sendPage(
    reply: { header: (name: string, value: string) => unknown },
    request: { url: string; query: unknown },
    page: WorkPage,
  ) {
    if (page.next_cursor) {
      reply.header('link', nextLink(request.url, request.query as Record<string, unknown>, page.next_cursor));
    }
    return page.items;
  }

  app.post(
    '/work',
    {
      config: { access: ACCESS.submit },
      schema: {
        operationId: 'submitWorkItem',
        tags,
        summary: 'Submit a work item; with `agent` it is dispatched in the same transaction',
        headers: SubmitHeadersSchema,
        body: CreateWorkItemSchema,
        response: {
          201: withHeaders(WorkItemSchema, 'Location', 'ETag', 'Idempotent-Replayed'),
          ...problemResponses(400, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      assertMayDispatch(request.principal, request.body.agent);
      // The caller's identity, never a header it wrote (X-User counts only under AUTH=off).
      const { item, replayed } = await work.submit(
        request.body,
        request.principal!,
        request.headers['idempotency-key'],
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).header('location', `/work/${item.id}`).header('etag', etagOf(item)).send(item);
    },
  );

  app.post(
    '/work/claim',
    {
      config: { access: ACCESS.work },
      schema: {
        operationId: 'claimWorkItem',
        tags,
        summary:
          'Claim the next work item: your own dispatched items first, then the queue; 204 when none (or after wait_s). With `finish`, finishes the last one first',
        body: ClaimSchema,
        response: {
          200: withHeaders(WorkItemSchema, 'ETag'),
          204: Type.Null({ description: 'Nothing to claim' }),
          ...problemResponses(400, 404, 409, 412, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      // An agent token claims as its own agent and no other; without `agent`, as that one.
      const { finish, ...ask } = request.body;
      const agent = requireActingAgent(request.principal, ask.agent);
      // One request where an agent would send two (its PATCH, then its next claim): the same
      // change as that PATCH, and nothing is claimed when it fails.
      if (finish)
        await work.update(finish.id, finishingPatch(finish, agent), request.principal, finishingPrecondition(finish));
      const left = new AbortController();
      const socket = request.raw.socket;
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) left.abort();
      });
      const item = await claims.claim({ ...ask, agent }, actorFor(request.principal, agent, agent), left.signal);
      if (left.signal.aborted) {
        // The client hung up while waiting; its half-closed socket would otherwise stay open.
        // (An in-process caller, the MCP server through app.inject, has a stand-in without destroy.)
        reply.hijack();
        if (typeof socket.destroy === 'function') socket.destroy();
        return reply;
      }
      if (!item) return reply.code(204).send(null);
      return reply.header('etag', etagOf(item)).send(item);
    },
  );

  app.post(
    '/work/:id/heartbeat',
    {
      config: { access: ACCESS.work },
      schema: {
        operationId: 'heartbeatWorkItem',
        tags,
        summary: "Extend the holder's lease on a work item; answers the item with its new lease_expires_at",
        params: WorkIdParamsSchema,
        body: HeartbeatSchema,
        response: { 200: withHeaders(WorkItemSchema, 'ETag'), ...problemResponses(400, 404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const agent = requireActingAgent(request.principal, request.body.agent);
      const item = await work.heartbeat(request.params.id, { ...request.body, agent }, request.principal);
      return reply.header('etag', etagOf(item)).send(item);
    },
  );

  app.get(
    '/work',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listWorkItems',
        tags,
        summary: 'List work items, newest first or in queue order; next page in the Link header',
        querystring: ListWorkQuerySchema,
        response: {
          200: withHeaders(Type.Array(WorkItemSummarySchema, { maxItems: MAX_PAGE_SIZE }), 'Link'),
          ...problemResponses(422),
        },
      },
    },
    async (request, reply) => sendPage(reply, request, await work.list(request.query)),
  );

  app.get(
    '/work/counts',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'countWorkItems',
        tags,
        summary: 'Number of work items in each status, with the same filters as the list',
        querystring: CountsQuerySchema,
        response: { 200: StatusCountsSchema, ...problemResponses(422) },
      },
    },
    async (request) => work.counts(request.query),
  );

  app.get(
    '/work/agent/:agent',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listAgentWorkItems',
        tags,
        summary: "An agent's work items",
        params: AgentParamsSchema,
        querystring: AgentWorkQuerySchema,
        response: {
          200: withHeaders(Type.Array(WorkItemSummarySchema, { maxItems: MAX_PAGE_SIZE }), 'Link'),
          ...problemResponses(404, 422),
        },
      },
    },
    async (request, reply) => sendPage(reply, request, await work.list(request.query, request.params.agent)),
  );

  app.get(
    '/work/:id',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'getWorkItem',
        tags,
        summary:
          'One work item with its dispatch log, its dependencies (depends_on, blocked_by) and its children; its version is the ETag',
        params: WorkIdParamsSchema,
        headers: IfNoneMatchHeadersSchema,
        response: {
          200: withHeaders(WorkItemDetailSchema, 'ETag'),
          304: withHeaders(Type.Null({ description: "Not Modified: the caller's copy is current" }), 'ETag'),
          ...problemResponses(404),
        },
      },
    },
    async (request, reply) => {
      const item = await work.get(request.params.id);
      const etag = etagOf(item);
      reply.header('etag', etag);
      // No payload at all: Fastify would serialize a null as "null" and announce Content-Length 4
      // on a 304, which has no body (undici then refuses the answer). The type says null; an
      // absent payload is what Fastify sends without a length.
      if (holdsCurrent(request.headers['if-none-match'], etag))
        return reply.code(304).send(undefined as unknown as null);
      return item;
    },
  );

  app.get(
    '/work/:id/history',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'getWorkItemHistory',
        tags,
        summary: 'Every change to a work item, oldest first: when, who (actor and role), what changed',
        params: WorkIdParamsSchema,
        response: { 200: Type.Array(HistoryEntrySchema), ...problemResponses(404) },
      },
    },
    async (request) => work.history(request.params.id),
  );

  app.patch(
    '/work/:id',
    {
      config: { access: ACCESS.work },
      schema: {
        operationId: 'updateWorkItem',
        tags,
        summary: 'Move a work item through its lifecycle, reassign it, or edit it; If-Match guards against stale views',
        params: WorkIdParamsSchema,
        headers: IfMatchHeadersSchema,
        body: UpdateWorkItemSchema,
        response: { 200: withHeaders(WorkItemSchema, 'ETag'), ...problemResponses(400, 404, 409, 412, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const agent = actingAgent(request.principal, request.body.agent);
      const item = await work.update(
        request.params.id,
        agent === undefined ? request.body : { ...request.body, agent },
        request.principal,
        parseIfMatch(request.headers['if-match']),
      );
      return reply.header('etag', etagOf(item)).send(item);
    },
  );

  app.delete(
    '/work/:id',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'deleteWorkItem',
        tags,
        summary: 'Delete a work item and its dispatch log; 409 while other items depend on it or it has children',
        params: WorkIdParamsSchema,
        headers: IfMatchHeadersSchema,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(404, 409, 412) },
      },
    },
    async (request, reply) => {
      await work.remove(request.params.id, request.principal, parseIfMatch(request.headers['if-match']));
      return reply.code(204).send(null);
    },
  );
}

export function registerProjectRoutes(app: HttpApp, projects: ProjectService): void {
  const tags = ['projects'];

  app.post(
    '/projects',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'createProject',
        tags,
        summary: 'Create a project (names are unique ignoring case)',
        body: CreateProjectSchema,
        response: { 201: withHeaders(ProjectSchema, 'Location'), ...problemResponses(400, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const project = await projects.create(request.body);
      return reply.code(201).header('location', `/projects/${project.id}`).send(project);
    },
  );

  app.get(
    '/projects',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listProjects',
        tags,
        summary: 'All projects, by name',
        response: { 200: Type.Array(ProjectSchema) },
      },
    },
    async () => projects.list(),
  );

  app.get(
    '/projects/:id',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'getProject',
        tags,
        summary: 'One project',
        params: ProjectIdParamsSchema,
        response: { 200: ProjectSchema, ...problemResponses(404) },
      },
    },
    async (request) => projects.get(request.params.id),
  );

  app.patch(
    '/projects/:id',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'updateProject',
        tags,
        summary: 'Rename a project or change its external reference (null clears it)',
        params: ProjectIdParamsSchema,
        body: UpdateProjectSchema,
        response: { 200: ProjectSchema, ...problemResponses(400, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => projects.update(request.params.id, request.body),
  );
}
