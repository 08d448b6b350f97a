import BetterSqlite3 from 'better-sqlite3';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import { type Database, sqlitePath } from '../../src/shared/db/database.js';
import { createWorkStore } from '../../src/work/store/index.js';
import type { WorkFilter } from '../../src/work/store/port.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// "Every filter is served by an index": each listing query the store issues is explained, and
// no plan may read the work_items table without an index.

const FILTERS: WorkFilter[] = [
  {},
  { statuses: ['queued'] },
  { statuses: ['queued', 'dispatched'] },
  { created_by: 'ann' },
  { updated_since: '2026-11-01T00:00:00.000Z' },
  { agent: 'ann' },
  { project_id: '0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10' },
  { type: 'bug_fix' },
  { since: '2026-11-01T00:00:00.000Z' },
  { statuses: ['in_progress'], agent: 'ann' },
  { statuses: ['completed'], since: '2026-11-01T00:00:00.000Z' },
];
const AFTER = { created_at: '2026-11-21T08:00:00.000Z', id: '0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10', priority: 3 };

describe.each(await storesUnderTest())('query plans on %s', (kind) => {
  let test: TestDatabase;
  let captured: CompiledQuery[] = [];
  let kysely: Kysely<unknown>;
  let explain: (query: CompiledQuery) => Promise<string>;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    await (await openTestDatabase(test)).close(); // migrate
    const log = (event: { query: CompiledQuery }) => {
      captured.push(event.query);
    };
    if (kind === 'sqlite') {
      const raw = new BetterSqlite3(sqlitePath(test.config.url));
      kysely = new Kysely({ dialect: new SqliteDialect({ database: raw }), log });
      explain = async (query) =>
        raw
          .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
          .all(...(query.parameters as unknown[]))
          .map((row) => (row as { detail: string }).detail)
          .join('\n');
    } else {
      const pool = new pg.Pool({ connectionString: test.config.url, max: 1 });
      kysely = new Kysely({ dialect: new PostgresDialect({ pool }), log });
      explain = async (query) => {
        const client = await pool.connect();
        try {
          // With sequential scans priced out, a Seq Scan in the plan means no index can serve it.
          await client.query('SET enable_seqscan = off');
          const result = await client.query(`EXPLAIN ${query.sql}`, query.parameters as unknown[]);
          return result.rows.map((row) => row['QUERY PLAN'] as string).join('\n');
        } finally {
          client.release();
        }
      };
    }
  });
  afterAll(async () => {
    await kysely.destroy();
    await test.destroy();
  });

  const store = () =>
    createWorkStore(
      { dialect: kind, kysely, pool: null, ping: async () => true, close: async () => {} } as Database,
      DEPENDENT_NOTES,
    );

  function assertIndexed(plan: string, label: string) {
    if (kind === 'sqlite') {
      for (const line of plan.split('\n').filter((l) => /\bwork_items\b/.test(l))) {
        expect(line, `${label}\n${plan}`).toMatch(/USING (COVERING )?INDEX/);
      }
    } else {
      expect(plan, label).not.toMatch(/Seq Scan on work_items/);
      expect(plan, label).toMatch(/Index/);
    }
  }

  for (const filter of FILTERS) {
    for (const order of ['newest', 'priority'] as const) {
      for (const after of [null, AFTER]) {
        it(`list ${JSON.stringify(filter)} sort=${order}${after ? ' after a cursor' : ''} uses an index`, async () => {
          captured = [];
          await store().listWorkItems(filter, order, after, 101);
          expect(captured).toHaveLength(1);
          const plan = await explain(captured[0]!);
          if (process.env.SHOW_PLANS) console.log(kind, JSON.stringify(filter), order, after !== null, '\n', plan);
          assertIndexed(plan, JSON.stringify({ filter, order }));
        });
      }
    }
  }

  it('the dispatch log of an item is read through its index', async () => {
    captured = [];
    await store().listDispatches(AFTER.id);
    const plan = await explain(captured[0]!);
    if (kind === 'sqlite') expect(plan).toMatch(/USING (COVERING )?INDEX/);
    else expect(plan).not.toMatch(/Seq Scan/);
  });

  it('counts by status use an index', async () => {
    captured = [];
    await store().countByStatus({ agent: 'ann' });
    assertIndexed(await explain(captured[0]!), 'counts');
  });
});
