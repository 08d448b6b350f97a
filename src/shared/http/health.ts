import type { FastifyContextConfig } from 'fastify';
import type { Database, SqliteStatus } from '../db/database.js';
import type { HttpApp } from './types.js';
import { type HealthRetention, HealthSchema } from './schemas.js';

/** What needs an operator on SQLite while the service still answers reads. */
function sqliteDetails(status: SqliteStatus | null): {
  details?: { sqlite_wal?: 'over_bound'; sqlite_storage?: 'full' };
} {
  if (!status) return {};
  const details = {
    ...(status.wal?.overBound && { sqlite_wal: 'over_bound' as const }),
    ...(status.storageFull && { sqlite_storage: 'full' as const }),
  };
  return Object.keys(details).length > 0 ? { details } : {};
}

/** `GET /health`: ok while the database answers a query, 503 while it does not; `access` is the root's public level. */
export function registerHealthRoute(
  app: HttpApp,
  database: Pick<Database, 'ping' | 'sqliteStatus'>,
  access: FastifyContextConfig['access'],
  retention: () => Promise<HealthRetention | null> = async () => null,
): void {
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
    async (_request, reply) => {
      const details = sqliteDetails(database.sqliteStatus());
      if (!(await database.ping())) return reply.code(503).send({ status: 'unavailable' as const, ...details });
      const kept = await retention().catch(() => null);
      return { status: 'ok' as const, ...(kept && { retention: kept }), ...details };
    },
  );
}
