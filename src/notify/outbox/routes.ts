import { Type } from 'typebox';
import { ACCESS } from '../../auth/contract.js';
import type { HttpApp } from '../../shared/http/types.js';
import { withHeaders } from '../../shared/http/openapi.js';
import { nextLink } from '../../shared/http/paging.js';
import { problemResponses } from '../../shared/http/schemas.js';
import { WorkIdParamsSchema } from '../../work/contract.js';
import { NOTIFICATION_PAGE, NotificationSchema, NotificationsQuerySchema } from './schemas.js';
import type { NotificationService } from './service.js';
import type { TestMail } from './test-mail.js';
import { PersonParamsSchema } from '../people/schemas.js';

// The outbox's routes: thin, each one call of the notification service.

export function registerNotificationRoutes(app: HttpApp, notifications: NotificationService): void {
  const tags = ['notifications'];

  app.get(
    '/notifications',
    {
      config: { access: ACCESS.admin },
      schema: {
        operationId: 'listNotifications',
        tags,
        summary:
          'The emails the desk sent or is sending, newest first (status=failed: those that did not go); next page in the Link header',
        querystring: NotificationsQuerySchema,
        response: {
          200: withHeaders(Type.Array(NotificationSchema, { maxItems: NOTIFICATION_PAGE.max }), 'Link'),
          ...problemResponses(422),
        },
      },
    },
    async (request, reply) => {
      const page = await notifications.list(request.query);
      if (page.next_cursor) reply.header('link', nextLink(request.url, request.query, page.next_cursor));
      return page.notifications;
    },
  );

  app.get(
    '/work/:id/notifications',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listItemNotifications',
        tags,
        summary: "Who was told of a work item's questions and reviews, and when, oldest first",
        params: WorkIdParamsSchema,
        response: { 200: Type.Array(NotificationSchema), ...problemResponses(404) },
      },
    },
    async (request) => notifications.listForItem(request.params.id),
  );
}

/** "Send me a test email": a person's own (an admin: anyone's), through the outbox like any mail. */
export function registerTestMailRoute(app: HttpApp, testMail: TestMail): void {
  app.post(
    '/people/:name/test-email',
    {
      config: { access: ACCESS.answer },
      schema: {
        operationId: 'sendTestEmail',
        tags: ['people'],
        summary: "Queues a test email to the person's address; its row shows whether it went (own, or admin)",
        params: PersonParamsSchema,
        response: { 202: NotificationSchema, ...problemResponses(403, 404, 409) },
      },
    },
    async (request, reply) => reply.code(202).send(await testMail.send(request.params.name, request.principal)),
  );
}
