import { Type } from 'typebox';
import { ACCESS } from '../auth/contract.js';
import type { HttpApp } from '../shared/http/types.js';
import { withHeaders } from '../shared/http/openapi.js';
import { problemResponses } from '../shared/http/schemas.js';
import { WorkIdParamsSchema } from '../work/contract.js';
import type { CommentService } from './comments.js';
import type { QuestionService } from './questions.js';
import {
  AnswerSchema,
  AskSchema,
  CONVERSATION_PAGE,
  CommentParamsSchema,
  CommentSchema,
  CreateCommentSchema,
  InboxEntrySchema,
  InboxQuerySchema,
  CommentsQuerySchema,
  QuestionCountsSchema,
  QuestionParamsSchema,
  QuestionSchema,
  WaitQuerySchema,
} from './schemas.js';
import { nextLink } from '../shared/http/paging.js';

// The conversation's routes: thin, each one call of the comment or question service.
// Who may do what is the route's access level (auth/roles.ts) and, for agents, the service's
// rules (their own items). Pages go on in the Link header, as /work's do.

export function registerConversationRoutes(app: HttpApp, comments: CommentService, questions: QuestionService): void {
  const tags = ['conversation'];

  app.post(
    '/work/:id/comments',
    {
      config: { access: ACCESS.comment },
      schema: {
        operationId: 'addComment',
        tags,
        summary: "Add a comment to a work item's timeline (agents: on items they hold, held or created)",
        params: WorkIdParamsSchema,
        body: CreateCommentSchema,
        response: { 201: withHeaders(CommentSchema, 'Location'), ...problemResponses(400, 403, 404, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const comment = await comments.add(request.params.id, request.body, request.principal);
      return reply.code(201).header('location', `/work/${comment.work_item_id}/comments/${comment.id}`).send(comment);
    },
  );

  app.get(
    '/work/:id/comments',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listComments',
        tags,
        summary: "A work item's comments, oldest first (order=newest: the latest first); next page in the Link header",
        params: WorkIdParamsSchema,
        querystring: CommentsQuerySchema,
        response: {
          200: withHeaders(Type.Array(CommentSchema, { maxItems: CONVERSATION_PAGE.max }), 'Link'),
          ...problemResponses(404, 422),
        },
      },
    },
    async (request, reply) => {
      const page = await comments.list(request.params.id, request.query);
      if (page.next_cursor) reply.header('link', nextLink(request.url, request.query, page.next_cursor));
      return page.comments;
    },
  );

  app.delete(
    '/work/:id/comments/:comment_id',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'deleteComment',
        tags,
        summary: "Delete a comment (the item's history records it)",
        params: CommentParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      await comments.remove(request.params.id, request.params.comment_id, request.principal);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/work/:id/questions',
    {
      config: { access: ACCESS.comment },
      schema: {
        operationId: 'askQuestion',
        tags,
        summary: 'Ask a person: the item waits (blocked, lease paused) until the answer; one open question per item',
        params: WorkIdParamsSchema,
        body: AskSchema,
        response: {
          201: withHeaders(QuestionSchema, 'Location'),
          ...problemResponses(400, 403, 404, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const question = await questions.ask(request.params.id, request.body, request.principal);
      return reply
        .code(201)
        .header('location', `/work/${question.work_item_id}/questions/${question.id}`)
        .send(question);
    },
  );

  app.get(
    '/work/:id/questions',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listItemQuestions',
        tags,
        summary: "A work item's questions and reviews, oldest first",
        params: WorkIdParamsSchema,
        response: { 200: Type.Array(QuestionSchema), ...problemResponses(404) },
      },
    },
    async (request) => questions.listForItem(request.params.id),
  );

  app.get(
    '/work/:id/questions/:question_id',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'getQuestion',
        tags,
        summary: 'A question; with wait_s, answers as soon as it is answered, or at the end of the wait still open',
        params: QuestionParamsSchema,
        querystring: WaitQuerySchema,
        response: { 200: QuestionSchema, ...problemResponses(404, 422, 429) },
      },
    },
    async (request, reply) => {
      const left = new AbortController();
      const socket = request.raw.socket;
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) left.abort();
      });
      // Waits are limited per caller: its token, or its address on a desk without tokens.
      const caller = request.principal?.token_id ?? `address:${request.ip}`;
      const question = await questions.get(
        request.params.id,
        request.params.question_id,
        request.query.wait_s ?? 0,
        caller,
        left.signal,
      );
      if (left.signal.aborted) {
        // The client hung up while waiting (see the claim's long poll in work/routes.ts).
        reply.hijack();
        if (typeof socket.destroy === 'function') socket.destroy();
        return reply;
      }
      return question;
    },
  );

  app.post(
    '/work/:id/questions/:question_id/answer',
    {
      // Agents reach the service, which lets one answer only a question to @creator of an item it created.
      config: { access: ACCESS.comment },
      schema: {
        operationId: 'answerQuestion',
        tags,
        summary:
          'An answer: the item resumes with its agent, or a review approves or returns it (people answer any; an agent only a question to @creator of an item it created)',
        params: QuestionParamsSchema,
        body: AnswerSchema,
        response: { 200: QuestionSchema, ...problemResponses(400, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => questions.answer(request.params.id, request.params.question_id, request.body, request.principal),
  );

  app.get(
    '/questions',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listQuestions',
        tags,
        summary:
          'The inbox: open questions oldest first, or answered ones newest first, with their items; next page in the Link header',
        querystring: InboxQuerySchema,
        response: {
          200: withHeaders(Type.Array(InboxEntrySchema, { maxItems: CONVERSATION_PAGE.max }), 'Link'),
          ...problemResponses(422),
        },
      },
    },
    async (request, reply) => {
      const page = await questions.inbox(request.query);
      if (page.next_cursor) reply.header('link', nextLink(request.url, request.query, page.next_cursor));
      return page.entries;
    },
  );

  app.get(
    '/questions/counts',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'countQuestions',
        tags,
        summary: 'How many questions wait for a person (the UI’s badge)',
        response: { 200: QuestionCountsSchema },
      },
    },
    async () => questions.counts(),
  );
}
