import { ACCESS } from '../../auth/contract.js';
import type { HttpApp } from '../../shared/http/types.js';
import { withHeaders } from '../../shared/http/openapi.js';
import { problemResponses } from '../../shared/http/schemas.js';
import { compressJson } from './compress.js';
import { StatsQuerySchema, WorkStatsSchema } from './schemas.js';
import type { StatsService } from './service.js';

export const DEFAULT_STATS_DAYS = 7;

export function registerStatsRoutes(app: HttpApp, stats: StatsService): void {
  app.get(
    '/work/stats',
    {
      config: { access: ACCESS.read },
      // Only here: this answer is tens of kB; the work routes answer a few hundred bytes.
      onSend: compressJson,
      schema: {
        operationId: 'getWorkStats',
        tags: ['work items'],
        summary: "The dashboard's numbers in one answer: counts now, hourly flow and queue depth, agents' results",
        querystring: StatsQuerySchema,
        response: { 200: withHeaders(WorkStatsSchema, 'Vary'), ...problemResponses(422) },
      },
    },
    async (request) => stats.workStats(request.query.days ?? DEFAULT_STATS_DAYS),
  );
}
