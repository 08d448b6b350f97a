import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { sqlitePath } from '../../src/shared/db/database.js';
import { migratePostgres, migrateSqlite } from '../../src/shared/db/migrate.js';

// The ceiling of bench:work: bare Fastify with one prepared INSERT into the same work_items table, a pg Pool of the
// same size on PostgreSQL, WAL with synchronous=NORMAL (no fsync per request) on SQLite. GET /event-loop answers
// the loop's delay since the last ask. Environment: CEILING_PORT, DATABASE_URL, DATABASE_POOL_SIZE.

/** The same resolution as prom-client's nodejs_eventloop_lag_* in the service's /metrics. */
const EVENT_LOOP_RESOLUTION_MS = 10;

type Insert = (values: unknown[]) => Promise<void>;

const INSERT_SQL = {
  sqlite:
    'INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  postgres:
    'INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
} as const;

async function openInsert(url: string, poolSize: number): Promise<{ insert: Insert; close: () => Promise<void> }> {
  const logger = pino({ level: 'silent' });
  if (url.startsWith('sqlite:')) {
    const db = new BetterSqlite3(sqlitePath(url), { timeout: 5_000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db, logger);
    const statement = db.prepare(INSERT_SQL.sqlite);
    return {
      insert: async (values) => void statement.run(values),
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  await migratePostgres(pool, logger);
  return {
    // A named query is prepared once per connection and then only executed.
    insert: async (values) => void (await pool.query({ name: 'ceiling-insert', text: INSERT_SQL.postgres, values })),
    close: () => pool.end(),
  };
}

async function main(): Promise<void> {
  const port = Number(process.env.CEILING_PORT ?? 8090);
  const { insert, close } = await openInsert(
    process.env.DATABASE_URL ?? 'sqlite::memory:',
    Number(process.env.DATABASE_POOL_SIZE ?? 10),
  );
  const app = Fastify({ logger: false });
  app.get('/health', async () => ({ status: 'ok' }));
  const delay = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  delay.enable();
  app.get('/event-loop', async () => {
    // The histogram holds whole sampling periods: the delay is what the p99 ran over one.
    const p99Ms = Math.max(0, delay.percentile(99) / 1e6 - EVENT_LOOP_RESOLUTION_MS);
    delay.reset();
    return { p99_ms: Math.round(p99Ms * 100) / 100 };
  });
  app.post('/work', async (request, reply) => {
    const body = request.body as { type: string; description: string; priority?: number };
    const id = randomUUID();
    const at = new Date().toISOString();
    await insert([id, body.type, body.description, body.priority ?? 3, 'queued', 'anonymous', at, at]);
    return reply.code(201).send({ id });
  });
  await app.listen({ host: '127.0.0.1', port });
  const stop = async () => {
    await app.close();
    await close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`ceiling server failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
