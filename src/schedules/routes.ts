import { Type } from 'typebox';
import { ACCESS } from '../auth/contract.js';
import { withHeaders } from '../shared/http/openapi.js';
import { problemResponses } from '../shared/http/schemas.js';
import type { HttpApp } from '../shared/http/types.js';
import {
  CreateScheduleSchema,
  ListSchedulesQuerySchema,
  PreviewQuerySchema,
  PreviewSchema,
  RunNowSchema,
  ScheduleDetailSchema,
  ScheduleParamsSchema,
  ScheduleSchema,
  UpdateScheduleSchema,
} from './schemas.js';
import type { ScheduleService } from './service.js';

// The schedules' routes: thin, each one call of the service. Members and admins manage
// schedules (ACCESS.schedule); everyone who reads the desk, agents included, reads them.

export function registerScheduleRoutes(app: HttpApp, schedules: ScheduleService): void {
  const tags = ['schedules'];
  const manage = { access: ACCESS.schedule };
  const read = { access: ACCESS.read };

  app.post(
    '/schedules',
    {
      config: manage,
      schema: {
        operationId: 'createSchedule',
        tags,
        summary: 'Create a schedule: one work item per occurrence of a cron expression in a time zone',
        body: CreateScheduleSchema,
        response: { 201: withHeaders(ScheduleSchema, 'Location'), ...problemResponses(400, 403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const schedule = await schedules.create(request.body, request.principal);
      return reply.code(201).header('location', `/schedules/${schedule.id}`).send(schedule);
    },
  );

  app.get(
    '/schedules',
    {
      config: read,
      schema: {
        operationId: 'listSchedules',
        tags,
        summary: 'Every schedule, by name; filtered by project and whether enabled',
        querystring: ListSchedulesQuerySchema,
        response: { 200: Type.Array(ScheduleSchema), ...problemResponses(422) },
      },
    },
    async (request) => schedules.list(request.query),
  );

  // Before /schedules/:id, so that "preview" is never read as an id.
  app.get(
    '/schedules/preview',
    {
      config: read,
      schema: {
        operationId: 'previewSchedule',
        tags,
        summary: 'The next five runs of a cron expression in a zone (UTC and local), without saving',
        querystring: PreviewQuerySchema,
        response: { 200: PreviewSchema, ...problemResponses(422) },
      },
    },
    async (request) => schedules.preview(request.query),
  );

  app.get(
    '/schedules/:id',
    {
      config: read,
      schema: {
        operationId: 'getSchedule',
        tags,
        summary: 'One schedule with its next five runs and its last 20 occurrences',
        params: ScheduleParamsSchema,
        response: { 200: ScheduleDetailSchema, ...problemResponses(404) },
      },
    },
    async (request) => schedules.get(request.params.id),
  );

  app.patch(
    '/schedules/:id',
    {
      config: manage,
      schema: {
        operationId: 'updateSchedule',
        tags,
        summary: 'Change a schedule; a new rhythm (cron, tz, starts_at, ends_at) starts at the edit',
        params: ScheduleParamsSchema,
        body: UpdateScheduleSchema,
        response: { 200: ScheduleSchema, ...problemResponses(400, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => schedules.update(request.params.id, request.body),
  );

  app.delete(
    '/schedules/:id',
    {
      config: manage,
      schema: {
        operationId: 'deleteSchedule',
        tags,
        summary: 'Delete a schedule and its occurrences; the items it made stay',
        params: ScheduleParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted' }), ...problemResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await schedules.remove(request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/schedules/:id/run',
    {
      config: manage,
      schema: {
        operationId: 'runSchedule',
        tags,
        summary: 'One occurrence now, outside the rhythm: its item is made at once (overlap does not apply)',
        params: ScheduleParamsSchema,
        response: { 201: RunNowSchema, ...problemResponses(403, 404, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await schedules.runNow(request.params.id)),
  );
}
