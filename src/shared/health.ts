import type { FastifyContextConfig } from 'fastify';
import type { Database } from './db.js';
import type { HttpApp } from './http-types.js';
import { HealthSchema } from './schemas.js';

/** `GET /health`: ok while the database answers a query, 503 while it does not; `access` is the root's public level. */
export function registerHealthRoute(app: HttpApp, database: Pick<Database, 'ping'>, access: FastifyContextConfig['access']): void {
  app.get(
    '/health',
    {
      config: { access },
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'Whether the service can reach its database',
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) =>
      (await database.ping()) ? { status: 'ok' as const } : reply.code(503).send({ status: 'unavailable' as const }),
  );
}
