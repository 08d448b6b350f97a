import BetterSqlite3 from 'better-sqlite3';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crossDialectStatements } from '../../src/conversation/store/cross-dialect.js';
import { type Database, sqlitePath } from '../../src/shared/db/database.js';
import type { DatabaseSchema } from '../../src/shared/db/schema.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// The scheduler asks every minute which open questions are past their deadline and not yet
// escalated. On a desk of years that must read those few through work_questions_due, not walk
// every question ever asked: planned here after ANALYZE saw thousands answered and open.

const ITEMS = 6_000;
/** Every question is answered but the last OPEN; of those, DUE have a deadline, half of them past. */
const OPEN = 1_200;
const DUE = 40;
const AT = '2027-03-01T12:00:00.000Z';

/** One question per item (the database allows one open per item), written by either database's SQL. */
function seedSql(series: string, uuid: (n: string) => string, time: (n: string) => string): string[] {
  return [
    `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
     SELECT ${uuid('n')}, 'plan', 'item', 3, 'in_progress', 'ann', ${time('n')}, ${time('n')} FROM ${series}`,
    `INSERT INTO work_questions (id, work_item_id, kind, asked_by, asked_role, question, status, asked_at, blocked_item,
       answered_at, due_at, escalated_at)
     SELECT ${uuid('n + 100000')}, ${uuid('n')}, 'question', 'ada', 'agent', 'why?',
       CASE WHEN n > ${ITEMS - OPEN} THEN 'open' ELSE 'answered' END, ${time('n')}, 0,
       CASE WHEN n > ${ITEMS - OPEN} THEN NULL ELSE ${time('n')} END,
       CASE WHEN n > ${ITEMS - DUE} THEN ${time(`n * 1000 - ${ITEMS * 1000 - (DUE / 2) * 1000}`)} END,
       CASE WHEN n > ${ITEMS - DUE} AND n % 4 = 0 THEN ${time('n')} END
     FROM ${series}`,
  ];
}

/** Past due, open, not escalated: the rows the query must return, by the seed's arithmetic. */
const expectedCount = (() => {
  let count = 0;
  for (let n = ITEMS - DUE + 1; n <= ITEMS; n++) {
    const dueOffsetS = n * 1000 - (ITEMS * 1000 - (DUE / 2) * 1000);
    if (dueOffsetS <= 0 && n % 4 !== 0) count++;
  }
  return count;
})();

describe.each(await storesUnderTest())('the escalation query on %s', (kind) => {
  let test: TestDatabase;
  let database: Database;
  let kysely: Kysely<DatabaseSchema>;
  let raw: BetterSqlite3.Database | undefined;
  let captured: CompiledQuery[] = [];

  beforeAll(async () => {
    test = await createTestDatabase(kind, { statementTimeoutMs: 120_000 });
    database = await openTestDatabase(test);
    const log = (event: { query: CompiledQuery }) => void captured.push(event.query);
    if (kind === 'postgres') {
      const pool = database.pool as pg.Pool;
      const time = (n: string) => `timestamptz '${AT}' + (${n}) * interval '1 second'`;
      const uuid = (n: string) => `('00000000-0000-4000-8000-' || lpad((${n})::text, 12, '0'))::uuid`;
      for (const statement of seedSql(`generate_series(1, ${ITEMS}) AS n`, uuid, time)) await pool.query(statement);
      await pool.query('ANALYZE work_questions');
      kysely = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }), log });
    } else {
      await database.close();
      raw = new BetterSqlite3(sqlitePath(test.config.url));
      const series = `(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ITEMS}) SELECT n FROM s)`;
      const time = (n: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', '${AT}', (${n}) || ' seconds')`;
      const uuid = (n: string) => `printf('00000000-0000-4000-8000-%012d', ${n})`;
      for (const statement of seedSql(series, uuid, time)) raw.exec(statement);
      raw.exec('ANALYZE');
      kysely = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: raw }), log });
    }
  });
  afterAll(async () => {
    await kysely?.destroy();
    if (kind === 'postgres') await database?.close();
    await test?.destroy();
  });

  async function plan(query: CompiledQuery): Promise<string> {
    if (raw)
      return raw
        .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
        .all(...(query.parameters as unknown[]))
        .map((row) => (row as { detail: string }).detail)
        .join('\n');
    const result = await (database.pool as pg.Pool).query(
      `EXPLAIN (COSTS OFF) ${query.sql}`,
      query.parameters as unknown[],
    );
    return result.rows.map((row) => row['QUERY PLAN'] as string).join('\n');
  }

  it('finds the overdue questions not yet escalated, through work_questions_due', async () => {
    captured = [];
    const rows = await crossDialectStatements(kysely).listToEscalate(AT, 100);
    expect(expectedCount).toBeGreaterThan(0);
    expect(rows).toHaveLength(expectedCount);
    expect(rows.every((row) => row.status === 'open' && row.escalated_at === null)).toBe(true);
    const planned = await plan(captured.find((query) => /work_questions/.test(query.sql))!);
    expect(planned, planned).toMatch(/work_questions_due/);
    expect(planned, planned).not.toMatch(/SCAN work_questions\b(?! USING)|Seq Scan/);
  });
});
