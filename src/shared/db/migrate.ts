import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { Logger } from 'pino';

// Migrations are plain SQL files per dialect (`migrations/<dialect>/NNN_name.sql`), applied in
// order, each in its own transaction (then its batches, if it has any), recorded in
// `schema_migrations`; on the raw driver, which takes a whole multi-statement file.

interface Migration {
  version: string;
  sql: string;
  /**
   * What follows a line `-- batches:` in the file: one batch of a rebuild over existing rows,
   * run after the migrations in transactions of its own until its last statement changes no
   * row, so the service's writes wait a batch at most. Run at every start, so a rebuild cut
   * short goes on; one with nothing left costs a statement.
   */
  batches: string | null;
}

const BATCHES = /^-- batches:.*$/m;

function migrationsRoot(): string {
  // Works from src/shared/db (vitest) and from dist/src/shared/db (the built service).
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, 'sqlite'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('migrations folder not found');
}

export function loadMigrations(dialect: 'sqlite' | 'postgres'): Migration[] {
  const folder = join(migrationsRoot(), dialect);
  return readdirSync(folder)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const [sql = '', batches = null] = readFileSync(join(folder, file), 'utf8').split(BATCHES);
      return { version: file.replace(/\.sql$/, ''), sql, batches };
    });
}

/** A rebuild that had rows to do says how many batches it ran and how long it took. */
function logBatches(logger: Logger, version: string, batches: number, started: number): void {
  if (batches === 0) return;
  logger.info({ rebuilt_by: version, batches, ms: Math.round(performance.now() - started) }, 'rebuild done');
}

const CREATE_LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version TEXT PRIMARY KEY,
  applied_at TEXT NOT NULL
)`;

export function migrateSqlite(db: BetterSqlite3.Database, logger: Logger): void {
  const migrations = loadMigrations('sqlite');
  db.exec(CREATE_LEDGER);
  // IMMEDIATE takes the write lock first, so two processes opening one file cannot both migrate.
  const applyPending = db.transaction(() => {
    const applied = new Set(
      db
        .prepare('SELECT version FROM schema_migrations')
        .all()
        .map((row) => (row as { version: string }).version),
    );
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      const started = performance.now();
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
        migration.version,
        new Date().toISOString(),
      );
      // A migration that builds an index over existing rows says how long the service waited for it.
      logger.info({ migration: migration.version, ms: Math.round(performance.now() - started) }, 'migration applied');
    }
  });
  applyPending.immediate();
  for (const { version, batches } of migrations) {
    if (batches === null) continue;
    const started = performance.now();
    const batch = db.transaction(() => {
      db.exec(batches);
      return (db.prepare('SELECT changes() AS n').get() as { n: number }).n;
    });
    let count = 0;
    while (batch.immediate() > 0) count += 1;
    logBatches(logger, version, count, started);
  }
}

// Any constant works; it only has to be the same in every instance of agentdesk.
const MIGRATION_LOCK_KEY = 7_310_042_001;

export async function migratePostgres(pool: pg.Pool, logger: Logger): Promise<void> {
  const migrations = loadMigrations('postgres');
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(CREATE_LEDGER);
      const { rows } = await client.query<{ version: string }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((row) => row.version));
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        const started = performance.now();
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
            migration.version,
            new Date().toISOString(),
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        // A migration that builds an index over existing rows says how long the service waited for it.
        logger.info({ migration: migration.version, ms: Math.round(performance.now() - started) }, 'migration applied');
      }
      for (const { version, batches } of migrations) {
        if (batches !== null) await runBatches(client, logger, version, batches);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

async function runBatches(client: pg.PoolClient, logger: Logger, version: string, batches: string): Promise<void> {
  const started = performance.now();
  let count = 0;
  for (;;) {
    await client.query('BEGIN');
    let changed: number;
    try {
      const results = (await client.query(batches)) as unknown as pg.QueryResult | pg.QueryResult[];
      changed = (Array.isArray(results) ? results.at(-1) : results)?.rowCount ?? 0;
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
    if (changed === 0) break;
    count += 1;
  }
  logBatches(logger, version, count, started);
}
