import { Type } from 'typebox';
import { ACCESS } from '../auth/contract.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../shared/errors.js';
import type { HttpApp } from '../shared/http/types.js';
import { withHeaders } from '../shared/http/openapi.js';
import { problemResponses } from '../shared/http/schemas.js';
import type { MailboxService } from './mailbox-service.js';
import { UPLOAD_TYPES } from './uploads.js';
import {
  ConnectionTestSchema,
  ImportAcceptedSchema,
  CreateMailboxSchema,
  IntakeMessageSchema,
  MailboxIdParamsSchema,
  MAX_MESSAGES_PAGE,
  MailboxSchema,
  MessagesQuerySchema,
  UpdateMailboxSchema,
} from './schemas.js';
import { nextLink } from '../shared/http/paging.js';

export async function registerMailboxRoutes(
  app: HttpApp,
  mailboxes: MailboxService,
  importMaxBytes: number,
): Promise<void> {
  const tags = ['mailboxes'];

  app.post(
    '/mailboxes',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'createMailbox',
        tags,
        summary: 'Connect a mailbox; its secret is encrypted at rest and never returned',
        body: CreateMailboxSchema,
        response: { 201: withHeaders(MailboxSchema, 'Location'), ...problemResponses(400, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const mailbox = await mailboxes.create(request.body);
      return reply.code(201).header('location', `/mailboxes/${mailbox.id}`).send(mailbox);
    },
  );

  app.get(
    '/mailboxes',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listMailboxes',
        tags,
        summary: 'Every mailbox with its state and counters, oldest first',
        response: { 200: Type.Array(MailboxSchema) },
      },
    },
    async () => mailboxes.list(),
  );

  app.get(
    '/mailboxes/:id',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'getMailbox',
        tags,
        summary: 'One mailbox: settings (never the secret), state, last error, counters, backfill progress',
        params: MailboxIdParamsSchema,
        response: { 200: MailboxSchema, ...problemResponses(404) },
      },
    },
    async (request) => mailboxes.get(request.params.id),
  );

  app.patch(
    '/mailboxes/:id',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'updateMailbox',
        tags,
        summary: 'Change a mailbox: settings, secret, enabled, routing rules',
        params: MailboxIdParamsSchema,
        body: UpdateMailboxSchema,
        response: { 200: MailboxSchema, ...problemResponses(400, 404, 413, 415, 422) },
      },
    },
    async (request) => mailboxes.update(request.params.id, request.body),
  );

  app.delete(
    '/mailboxes/:id',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'deleteMailbox',
        tags,
        summary: 'Disconnect a mailbox and forget its intake log (the work items stay)',
        params: MailboxIdParamsSchema,
        response: { 204: Type.Null({ description: 'Disconnected' }), ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      await mailboxes.remove(request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/mailboxes/:id/test',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'testMailbox',
        tags,
        summary:
          'Connect, log in and open the folder; answers what was found or where it failed (dns, connect, tls, login, folder)',
        params: MailboxIdParamsSchema,
        response: { 200: ConnectionTestSchema, ...problemResponses(404) },
      },
    },
    async (request) => mailboxes.test(request.params.id),
  );

  app.get(
    '/mailboxes/:id/messages',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listMailboxMessages',
        tags,
        summary:
          'The intake log: every message taken in, its classification, the action taken and its work item; newest first, next page in the Link header',
        params: MailboxIdParamsSchema,
        querystring: MessagesQuerySchema,
        response: {
          200: withHeaders(Type.Array(IntakeMessageSchema, { maxItems: MAX_MESSAGES_PAGE }), 'Link'),
          ...problemResponses(404, 422),
        },
      },
    },
    async (request, reply) => {
      const page = await mailboxes.messages(request.params.id, request.query);
      if (page.next_cursor)
        reply.header('link', nextLink(request.url, request.query as Record<string, unknown>, page.next_cursor));
      return page.items;
    },
  );

  // Raw uploads, not JSON: their own parsers, in a scope of their own so no other route takes them.
  await app.register(async (plugin) => {
    const scope = plugin as unknown as HttpApp;
    scope.addContentTypeParser(
      Object.values(UPLOAD_TYPES),
      { parseAs: 'buffer', bodyLimit: importMaxBytes },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      '/mailboxes/:id/import',
      {
        bodyLimit: importMaxBytes,
        config: { access: ACCESS.admin },
        schema: {
          operationId: 'importMailboxMessages',
          tags,
          summary:
            "Take in an export: one .eml (message/rfc822) or an mbox (application/mbox); processed in the background, progress in the mailbox's backfill",
          params: MailboxIdParamsSchema,
          // Documents the upload's media types; the raw file arrives as a Buffer, checked below.
          consumes: Object.values(UPLOAD_TYPES),
          body: Type.Any({ description: 'The .eml file or the mbox export, as sent' }),
          response: { 202: ImportAcceptedSchema, ...problemResponses(400, 404, 413, 415, 422) },
        },
      },
      async (request, reply) => {
        const body = request.body as unknown;
        if (!Buffer.isBuffer(body)) {
          return reply
            .code(415)
            .type(PROBLEM_CONTENT_TYPE)
            .send(problem(415, `Send the file as ${Object.values(UPLOAD_TYPES).join(', ')}`));
        }
        const accepted = await mailboxes.importUpload(request.params.id, body, request.headers['content-type'] ?? '');
        return reply.code(202).send(accepted);
      },
    );
  });
}
