import { ACCESS } from '../auth/roles.js';
import type { Database } from './db.js';
import type { HttpApp } from './http.js';
import { HealthSchema } from './schemas.js';

/** `GET /health`: ok while the database answers a query, 503 while it does not. */
export function registerHealthRoute(app: HttpApp, database: Pick<Database, 'ping'>): void {
  app.get(
    '/health',
    {
      config: { access: ACCESS.public },
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
