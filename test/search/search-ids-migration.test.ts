import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { sqlitePath } from '../../src/shared/db/database.js';
import { loadMigrations, migratePostgres, migrateSqlite } from '../../src/shared/db/migrate.js';
import { parseQuery } from '../../src/search/query.js';
import { createSearchStore } from '../../src/search/store/index.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// A desk indexed before ids were indexed whole: migration 031 rebuilds its documents in batches
// after its own transaction, and then an id finds its item and a group of it is only a word.

const ITEMS = 2_500;
// Both written last and with the highest ids: the last batch rebuilds them, on either store.
const ID = 'fe2a9c1e-1042-4abc-8def-0123456789ab';
const LOCK = 'ffffffff-0000-4000-8000-000000000001';
const LEDGER = 'CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)';
const AT = '2026-11-01T00:00:00.000Z';

const seed = (kind: 'sqlite' | 'postgres') => {
  const fillerId =
    kind === 'postgres'
      ? 'gen_random_uuid()'
      : `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' ||
         substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
  const numbers =
    kind === 'postgres'
      ? `generate_series(1, ${ITEMS - 2}) AS n`
      : `(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ITEMS - 2}) SELECT n FROM s)`;
  const columns = 'id, type, description, priority, status, created_by, created_at, updated_at';
  return [
    `INSERT INTO work_items (${columns}) SELECT ${fillerId}, 'bench', 'Prepare the weekly report', 3, 'queued', 'ann', '${AT}', '${AT}' FROM ${numbers}`,
    `INSERT INTO work_items (${columns}) VALUES ('${ID}', 'ops', 'Rotate the badge readers', 3, 'queued', 'ann', '${AT}', '${AT}'),
       ('${LOCK}', 'ops', 'Replace lock 1042 on the east door', 3, 'queued', 'ann', '${AT}', '${AT}')`,
  ];
};

describe.each(await storesUnderTest())('migration 031 on %s', (kind) => {
  let test: TestDatabase;
  let database: Database;
  const logged: Record<string, unknown>[] = [];

  beforeAll(async () => {
    test = await createTestDatabase(kind, { statementTimeoutMs: 60_000 });
    const before = loadMigrations(kind).filter((m) => m.version < '031');
    const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line)) });
    if (kind === 'sqlite') {
      const raw = new BetterSqlite3(sqlitePath(test.config.url));
      raw.exec(LEDGER);
      for (const m of before) {
        raw.exec(m.sql);
        raw.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(m.version, AT);
      }
      for (const statement of seed(kind)) raw.exec(statement);
      migrateSqlite(raw, logger);
      raw.close();
    } else {
      const pool = new pg.Pool({ connectionString: test.config.url, max: 1 });
      await pool.query(LEDGER);
      for (const m of before) {
        await pool.query(m.sql);
        await pool.query('INSERT INTO schema_migrations VALUES ($1, $2)', [m.version, AT]);
      }
      for (const statement of seed(kind)) await pool.query(statement);
      await migratePostgres(pool, logger);
      await pool.end();
    }
    database = await openTestDatabase(test);
  }, 120_000);

  afterAll(async () => {
    await database?.close();
    await test?.destroy();
  });

  const found = async (q: string) =>
    (
      await createSearchStore(database).search({
        query: parseQuery(q),
        person: null,
        order: 'relevance',
        after: null,
        limit: 10,
      })
    ).hits.map((hit) => hit.row.id);

  it('rebuilt every document in batches of a thousand, and says so', async () => {
    expect(logged.filter((line) => line.msg === 'rebuild done')).toEqual([
      expect.objectContaining({ rebuilt_by: '031_search_ids', batches: 3 }),
      // PostgreSQL then gives each existing document its place in the index (035); SQLite builds
      // the index again with its prefix indexes (037).
      expect.objectContaining(
        kind === 'postgres'
          ? { rebuilt_by: '035_search_places', batches: 3 }
          : { rebuilt_by: '037_search_prefixes', batches: 3 },
      ),
    ]);
    const left = await database.kysely
      .selectFrom('search_id_rebuild' as never)
      .selectAll()
      .execute();
    expect(left).toEqual([]);
  });

  it('finds the item by its id, and a group of the id only as a word', async () => {
    for (const q of [ID, ID.replace(/-/g, ''), ID.slice(0, 8)]) expect(await found(q), q).toEqual([ID]);
    expect(await found('1042')).toEqual([LOCK]);
    expect(await found('4abc')).toEqual([]);
    expect(await found('weekly report')).toHaveLength(10);
  });

  it.runIf(kind === 'sqlite')('indexes every existing document again, once, with prefix indexes', async () => {
    const count = async (match: string) =>
      (
        await sql<{ n: number }>`SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH ${match}`.execute(
          database.kysely,
        )
      ).rows[0]?.n;
    expect(await count('weekly')).toBe(ITEMS - 2);
    expect(await count('wee*')).toBe(ITEMS - 2);
    expect(await count('badge')).toBe(1);
    const left = await database.kysely
      .selectFrom('search_prefix_rebuild' as never)
      .selectAll()
      .execute();
    expect(left).toEqual([]);
    const { rows } = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE name = 'search_fts'`.execute(
      database.kysely,
    );
    expect(rows[0]?.sql).toContain("prefix = '3 4 5 6 7 8 9'");
  });

  it.runIf(kind === 'sqlite')('copies the newest documents, here all of them, into search_recent', async () => {
    const { rows } = await sql<{ weekly: number; badge: number; floor: number }>`SELECT
        (SELECT count(*) FROM search_recent WHERE search_recent MATCH 'weekly') AS weekly,
        (SELECT count(*) FROM search_recent WHERE search_recent MATCH 'badge') AS badge,
        (SELECT floor FROM search_recent_floor) AS floor`.execute(database.kysely);
    expect(rows[0]).toEqual({ weekly: ITEMS - 2, badge: 1, floor: 0 });
  });

  it.runIf(kind === 'postgres')(
    'places every existing document in its order of creation, and new ones after them',
    async () => {
      const placed = await sql<{ item_id: string; seq: string | null }>`SELECT s.item_id, s.seq FROM work_search s
        JOIN work_items w ON w.id = s.item_id ORDER BY w.created_at, w.id`.execute(database.kysely);
      expect(placed.rows.map((row) => Number(row.seq))).toEqual(Array.from({ length: ITEMS }, (_, n) => n + 1));
      await sql`INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
        VALUES (gen_random_uuid(), 'ops', 'Arrived after the migration', 3, 'queued', 'ann', ${AT}, ${AT})`.execute(
        database.kysely,
      );
      const { rows } = await sql<{ seq: string }>`SELECT s.seq FROM work_search s JOIN work_items w ON w.id = s.item_id
        WHERE w.description = 'Arrived after the migration'`.execute(database.kysely);
      expect(rows.map((row) => Number(row.seq))).toEqual([ITEMS + 1]);
    },
  );
});
