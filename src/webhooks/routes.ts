import { Type } from 'typebox';
import { ACCESS } from '../auth/contract.js';
import type { HttpApp } from '../shared/http/types.js';
import { withHeaders } from '../shared/http/openapi.js';
import { nextLink } from '../shared/http/paging.js';
import { problemResponses } from '../shared/http/schemas.js';
import {
  CreateWebhookSchema,
  CreatedWebhookSchema,
  DELIVERY_PAGE,
  DeliveriesQuerySchema,
  DeliveryParamsSchema,
  DeliverySchema,
  RecoverSchema,
  RecoveredSchema,
  RotatedSecretSchema,
  UpdateWebhookSchema,
  WebhookDetailSchema,
  WebhookEventsSchema,
  WebhookParamsSchema,
  WebhookSchema,
} from './schemas.js';
import type { WebhookService } from './service.js';

// The webhooks' routes, admins only: thin, each one call of the webhook service.

export function registerWebhookRoutes(app: HttpApp, webhooks: WebhookService): void {
  const tags = ['webhooks'];
  const config = { access: ACCESS.admin };

  // Before /webhooks/:id, so "events" is never read as an id.
  app.get(
    '/webhooks/events',
    {
      config,
      schema: {
        operationId: 'listWebhookEvents',
        tags,
        summary: 'The event names an endpoint may subscribe to',
        response: { 200: WebhookEventsSchema },
      },
    },
    async () => webhooks.events(),
  );

  app.post(
    '/webhooks',
    {
      config,
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Adds an endpoint; the answer carries its signing secret, shown this once',
        body: CreateWebhookSchema,
        response: { 201: CreatedWebhookSchema, ...problemResponses(409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await webhooks.create(request.body, request.principal)),
  );

  app.get(
    '/webhooks',
    {
      config,
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: 'Every endpoint, oldest first (no secrets)',
        response: { 200: Type.Array(WebhookSchema), ...problemResponses(422) },
      },
    },
    async () => webhooks.list(),
  );

  app.get(
    '/webhooks/:id',
    {
      config,
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'One endpoint, with how many deliveries wait and since when',
        params: WebhookParamsSchema,
        response: { 200: WebhookDetailSchema, ...problemResponses(404) },
      },
    },
    async (request) => webhooks.get(request.params.id),
  );

  app.patch(
    '/webhooks/:id',
    {
      config,
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Changes an endpoint; enabled:true turns a disabled one on again (its waiting deliveries go)',
        params: WebhookParamsSchema,
        body: UpdateWebhookSchema,
        response: { 200: WebhookSchema, ...problemResponses(404, 422) },
      },
    },
    async (request) => webhooks.update(request.params.id, request.body),
  );

  app.delete(
    '/webhooks/:id',
    {
      config,
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Removes an endpoint and its delivery log',
        params: WebhookParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      await webhooks.remove(request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      config,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'A new signing secret; the previous one still signs (a second signature) until previous_valid_until',
        params: WebhookParamsSchema,
        response: { 200: RotatedSecretSchema, ...problemResponses(404, 409) },
      },
    },
    async (request) => webhooks.rotate(request.params.id),
  );

  app.post(
    '/webhooks/:id/test',
    {
      config,
      schema: {
        operationId: 'testWebhook',
        tags,
        summary: 'Queues a webhook.test delivery to this endpoint alone',
        params: WebhookParamsSchema,
        response: { 202: DeliverySchema, ...problemResponses(404) },
      },
    },
    async (request, reply) => reply.code(202).send(await webhooks.test(request.params.id)),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config,
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: "The endpoint's deliveries, newest first, each with its attempts; next page in the Link header",
        params: WebhookParamsSchema,
        querystring: DeliveriesQuerySchema,
        response: {
          200: withHeaders(Type.Array(DeliverySchema, { maxItems: DELIVERY_PAGE.max }), 'Link'),
          ...problemResponses(404, 422),
        },
      },
    },
    async (request, reply) => {
      const page = await webhooks.deliveries(request.params.id, request.query);
      if (page.next_cursor) reply.header('link', nextLink(request.url, request.query, page.next_cursor));
      return page.deliveries;
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      config,
      schema: {
        operationId: 'redeliverWebhook',
        tags,
        summary: 'Sends a delivery again now, with the same webhook-id',
        params: DeliveryParamsSchema,
        response: { 202: DeliverySchema, ...problemResponses(404) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await webhooks.redeliver(request.params.id, request.params.delivery_id)),
  );

  app.post(
    '/webhooks/:id/recover',
    {
      config,
      schema: {
        operationId: 'recoverWebhookDeliveries',
        tags,
        summary: 'Sends again every failed delivery of the endpoint made since a time',
        params: WebhookParamsSchema,
        body: RecoverSchema,
        response: { 202: RecoveredSchema, ...problemResponses(404, 422) },
      },
    },
    async (request, reply) => reply.code(202).send(await webhooks.recover(request.params.id, request.body.since)),
  );
}
