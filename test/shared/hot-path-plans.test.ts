import { randomUUID } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { type CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import { type Database, sqlitePath } from '../../src/shared/db/database.js';
import { saveQuery } from '../../src/classify/dedupe/store/postgres.js';
import type { ClaimQuery, ItemChange } from '../../src/work/store/port.js';
import { candidatesQuery, changesQuery, postgresStatements } from '../../src/work/store/postgres.js';
import { PLAN_HOLD } from '../../src/work/plans/settle.js';
import { sqliteStatements } from '../../src/work/store/sqlite.js';
import type { DatabaseSchema } from '../../src/shared/db/schema.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// The hot paths of the agent loop, planned as the planner sees a desk after a burst: statistics
// taken while every item was queued, then most of them finished, and a backlog of another type
// at the head of the queue. Each plan went wrong once: the claim walked an index of every item
// past ~7,000 finished ones; a claim filtered by type or project walked the whole queue checking
// each row; a change (like the dedupe's save) hashed the whole table to find a handful.

const QUEUED_AT_ANALYZE = 4_000;
const FINISHED_SINCE = 3_900;
/** Queued items of another type, older than every `bench` item: the head of the queue. */
const BACKLOG = 1_500;
/**
 * Queued `bench` items that wait on a dependency, older still: they are at the head
 * of every shape's queue, and a claim must read none of them.
 */
const WAITING = 10_000;
const PROJECT = '0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10';
/** The item every waiting item depends on. */
const BLOCKER = '5d1c7a1e-8c1b-4d7e-9f55-2b7d0c3e9a01';
const NOW = '2026-11-23T00:00:00.000Z';
const AGENTS = ['agent-a', 'agent-b', 'agent-c', 'agent-d'];

/** Every shape a claim (and the wake-up timer) can take. */
const SHAPES: { label: string; query: ClaimQuery }[] = [
  { label: 'no filter', query: { types: null, project_id: null, now: NOW } },
  { label: 'one type', query: { types: ['bench'], project_id: null, now: NOW } },
  { label: 'types', query: { types: ['bench', 'rare'], project_id: null, now: NOW } },
  { label: 'project', query: { types: null, project_id: PROJECT, now: NOW } },
  { label: 'type and project', query: { types: ['bench'], project_id: PROJECT, now: NOW } },
];

/** The same desk on either database: `bench` items, most finished since ANALYZE, behind a backlog of `backlog` items. */
const SEED = [
  `INSERT INTO projects (id, name, name_key, created_at) VALUES ('${PROJECT}', 'p', 'p', '2026-11-01T00:00:00.000Z')`,
];

describe.skipIf(!(await storesUnderTest()).includes('postgres'))('hot-path plans on PostgreSQL', () => {
  let test: TestDatabase;
  let database: Database;
  let pool: pg.Pool;
  let ids: string[];

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    database = await openTestDatabase(test);
    pool = database.pool as pg.Pool;
    for (const statement of SEED) await pool.query(statement);
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
       SELECT gen_random_uuid(), 'bench', 'item ' || n, 3, 'queued', 'ann',
         timestamptz '2026-11-01T00:00:00Z' + n * interval '1 second', timestamptz '2026-11-01T00:00:00Z'
       FROM generate_series(1, $1::int) AS n RETURNING id`,
      [QUEUED_AT_ANALYZE],
    );
    ids = rows.map((row) => row.id);
    await pool.query('ANALYZE work_items');
    await pool.query(
      `UPDATE work_items SET status = 'completed', completed_at = updated_at
       WHERE id IN (SELECT id FROM work_items ORDER BY created_at LIMIT $1)`,
      [FINISHED_SINCE],
    );
    // After ANALYZE, as a backlog builds up between two runs of autovacuum.
    await pool.query(
      `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at, project_id, run_after)
       SELECT gen_random_uuid(), 'backlog', 'item ' || n, 3, 'queued', 'ann',
         timestamptz '2026-10-01T00:00:00Z' + n * interval '1 second', timestamptz '2026-10-01T00:00:00Z',
         CASE WHEN n % 500 = 0 THEN '${PROJECT}'::uuid END, CASE WHEN n % 3 = 0 THEN timestamptz '2026-12-01T00:00:00Z' END
       FROM generate_series(1, $1::int) AS n`,
      [BACKLOG],
    );
    await pool.query(`UPDATE work_items SET project_id = '${PROJECT}' WHERE type = 'bench' AND status = 'queued'`);
    await pool.query(
      `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at, project_id, waiting_on)
       SELECT gen_random_uuid(), 'bench', 'waits ' || n, 1, 'queued', 'ann',
         timestamptz '2026-09-01T00:00:00Z' + n * interval '1 second', timestamptz '2026-09-01T00:00:00Z', '${PROJECT}'::uuid, 1
       FROM generate_series(1, $1::int) AS n`,
      [WAITING],
    );
    // They all wait on one item (a plan behind its first step), which makes ANALYZE see one
    // distinct depends_on_id: the skew that once sent every completion through the whole table.
    await pool.query(
      `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
       VALUES ('${BLOCKER}', 'blocker', 'never ends', 3, 'dispatched', 'ann', timestamptz '2026-08-01T00:00:00Z', timestamptz '2026-08-01T00:00:00Z')`,
    );
    await pool.query(
      `INSERT INTO work_dependencies (item_id, depends_on_id) SELECT id, '${BLOCKER}' FROM work_items WHERE waiting_on = 1`,
    );
    await pool.query('ANALYZE work_dependencies');
  });
  afterAll(async () => {
    await database?.close();
    await test?.destroy();
  });

  async function explain(query: { text: string; values?: unknown[] }): Promise<string> {
    const client = await pool.connect();
    try {
      // ANALYZE runs the statement: inside a transaction that is rolled back, nothing stays.
      await client.query('BEGIN');
      const result = await client.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${query.text}`, query.values);
      return result.rows.map((row) => row['QUERY PLAN'] as string).join('\n');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  for (const { label, query } of SHAPES) {
    it(`a claim (${label}) takes none of the ${WAITING} items waiting on a dependency, and reads none of them`, async () => {
      const { rows } = await pool.query<{ waiting_on: number }>(candidatesQuery(query, AGENTS));
      expect(rows).toHaveLength(AGENTS.length);
      expect(rows.every((row) => row.waiting_on === 0)).toBe(true);
    });

    it(`a claim (${label}) reads its candidates through a claimable index, past no other item`, async () => {
      const plan = await explain(candidatesQuery(query, AGENTS));
      expect(plan, plan).toMatch(/work_items_claimable/);
      expect(plan, plan).not.toMatch(/Seq Scan on work_items/);
      expect(plan, plan).not.toMatch(/work_items_status_queue/);
      // Neither the finished items nor the backlog of another type are read on the way.
      expect(plan, plan).not.toMatch(/Rows Removed by Filter: \d{3,}/);
    });

    it(`a claim's read (${label}) is planned once per connection, and its cached plan walks a claimable index`, async () => {
      const statement = candidatesQuery(query, AGENTS);
      const client = await pool.connect();
      try {
        // PostgreSQL plans a prepared statement afresh for its first five runs, then keeps the
        // generic plan if it looks no dearer (postgres.ts, ELEMENTS_OF_3): planning the read
        // cost more CPU than running it.
        await client.query('BEGIN');
        for (let run = 0; run < 8; run += 1) await client.query(statement);
        const { rows } = await client.query<{ generic_plans: string }>(
          'SELECT generic_plans FROM pg_prepared_statements WHERE name = $1',
          [statement.name],
        );
        expect(Number(rows[0]?.generic_plans ?? 0)).toBeGreaterThanOrEqual(3);
        await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
        await client.query(`PREPARE generic_candidates AS ${statement.text}`);
        // EXECUTE takes no bound parameters: the values go in as literals (plain names here).
        const literal = (value: unknown) => `'${Array.isArray(value) ? `{${value.join(',')}}` : String(value)}'`;
        const explained = await client.query(
          `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE generic_candidates(${statement.values.map(literal).join(', ')})`,
        );
        const plan = explained.rows.map((row) => row['QUERY PLAN'] as string).join('\n');
        expect(plan, plan).toMatch(/run_after <= \$2/);
        expect(plan, plan).toMatch(/work_items_claimable/);
        expect(plan, plan).not.toMatch(/Seq Scan on work_items/);
        expect(plan, plan).not.toMatch(/Rows Removed by Filter: \d{3,}/);
      } finally {
        await client.query('ROLLBACK');
        // Not transactional; DEALLOCATE ALL would also drop what pg believes it has prepared.
        await client.query('DEALLOCATE generic_candidates').catch(() => undefined);
        client.release();
      }
    });

    it(`the next run_after (${label}) is read through work_items_due`, async () => {
      const captured: { text: string; values: unknown[] }[] = [];
      const statements = postgresStatements(
        database.kysely,
        async <R>(statement: { text: string; values: unknown[] }) => {
          captured.push(statement);
          return [] as R[];
        },
        DEPENDENT_NOTES,
      );
      await statements.nextRunAfter(query);
      const plan = await explain(captured[0]!);
      expect(plan, plan).toMatch(/work_items_due/);
      expect(plan, plan).not.toMatch(/Seq Scan on work_items/);
    });
  }

  it("the dedupe's save finds its records by primary key, not by hashing the table", async () => {
    await pool.query(
      `INSERT INTO classify_messages (record_key, fingerprint, state, created_at, updated_at)
       SELECT 'id:' || n, 'fp' || n, 'pending', now(), now() FROM generate_series(1, 3000) AS n`,
    );
    await pool.query('ANALYZE classify_messages');
    const plan = await explain(
      saveQuery([
        { record_key: 'id:7', fingerprint: 'fp7', result: '{}', now: NOW, usage: null },
        { record_key: 'id:2900', fingerprint: 'fp2900', result: null, now: NOW, usage: null },
      ]),
    );
    expect(plan).not.toMatch(/Seq Scan on classify_messages/);
    expect(plan).toMatch(/classify_messages_pkey/);
    expect(plan).toMatch(/Update on classify_messages m \(actual rows=2 /);
  });

  it("a batch of changes (the claim's write among them) finds its items by primary key, not by hashing the table", async () => {
    const changes: ItemChange[] = ids.slice(-5).map((id) => ({
      id,
      from_version: 1,
      set: { status: 'in_progress', assigned_agent: 'agent-a', version: 2, updated_at: NOW },
      openDispatch: {
        id: randomUUID(),
        work_item_id: id,
        agent: 'agent-a',
        dispatched_at: NOW,
        completed_at: null,
        outcome: null,
        reason: null,
      },
      event: { type: 'work.updated', data: '{}', at: NOW },
      history: { at: NOW, actor: 'ann', role: 'admin', action: 'claimed', changes: '{}' },
    }));
    const plan = await explain(changesQuery(changes, DEPENDENT_NOTES));
    expect(plan).not.toMatch(/Seq Scan on work_items/);
    expect(plan).toMatch(/work_items_pkey/);
    expect(plan).toMatch(/Update on work_items w \(actual rows=5 /);
  });

  it('a completion finds the items that depend on it through work_dependencies_dependents', async () => {
    const [done, waiting] = [ids.at(-7)!, ids.at(-6)!];
    await pool.query('INSERT INTO work_dependencies (item_id, depends_on_id) VALUES ($1, $2)', [waiting, done]);
    await pool.query('UPDATE work_items SET waiting_on = 1 WHERE id = $1', [waiting]);
    const actor = { name: 'agentdesk', role: 'system' };
    const plan = await explain(
      changesQuery(
        [
          {
            id: done,
            from_version: 1,
            set: { status: 'completed', outcome: 'success', completed_at: NOW, version: 2, updated_at: NOW },
            event: { type: 'work.updated', data: '{}', at: NOW },
            history: { at: NOW, actor: 'ann', role: 'admin', action: 'complete', changes: '{}' },
            dependents: { kind: 'release', event: 'work.updated', actor },
            from_link_version: 0,
          },
        ],
        DEPENDENT_NOTES,
      ),
    );
    expect(plan, plan).not.toMatch(/Seq Scan on work_(items|dependencies)/);
    expect(plan, plan).toMatch(/work_dependencies_dependents/);
    // The one dependent is released, in the completion's own statement.
    expect(plan, plan).toMatch(/Update on work_items w_1 \(actual rows=1 /);
  });
});

describe.skipIf(!(await storesUnderTest()).includes('sqlite'))('hot-path plans on SQLite', () => {
  let test: TestDatabase;
  let raw: BetterSqlite3.Database;
  let kysely: Kysely<DatabaseSchema>;
  let captured: CompiledQuery[] = [];

  beforeAll(async () => {
    test = await createTestDatabase('sqlite');
    await (await openTestDatabase(test)).close(); // migrate
    raw = new BetterSqlite3(sqlitePath(test.config.url));
    for (const statement of SEED) raw.exec(statement);
    raw.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${QUEUED_AT_ANALYZE})
      INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
      SELECT printf('00000000-0000-4000-8000-%012d', i), 'bench', 'item ' || i, 3, 'queued', 'ann',
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-01', '+' || i || ' seconds'), '2026-11-01T00:00:00.000Z' FROM n`);
    raw.exec('ANALYZE');
    raw.exec(
      `UPDATE work_items SET status = 'completed' WHERE id IN (SELECT id FROM work_items ORDER BY created_at LIMIT ${FINISHED_SINCE})`,
    );
    raw.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${BACKLOG})
      INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at, project_id, run_after)
      SELECT printf('00000000-0000-4000-9000-%012d', i), 'backlog', 'item ' || i, 3, 'queued', 'ann',
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-10-01', '+' || i || ' seconds'), '2026-10-01T00:00:00.000Z',
        CASE WHEN i % 500 = 0 THEN '${PROJECT}' END, CASE WHEN i % 3 = 0 THEN '2026-12-01T00:00:00.000Z' END FROM n`);
    raw.exec(`UPDATE work_items SET project_id = '${PROJECT}' WHERE type = 'bench' AND status = 'queued'`);
    raw.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${WAITING})
      INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at, project_id, waiting_on)
      SELECT printf('00000000-0000-4000-a000-%012d', i), 'bench', 'waits ' || i, 1, 'queued', 'ann',
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-09-01', '+' || i || ' seconds'), '2026-09-01T00:00:00.000Z', '${PROJECT}', 1 FROM n`);
    kysely = new Kysely<DatabaseSchema>({
      dialect: new SqliteDialect({ database: raw }),
      log: (event) => void captured.push(event.query),
    });
  });
  afterAll(async () => {
    await kysely?.destroy();
    await test?.destroy();
  });

  function explain(query: CompiledQuery): string {
    return raw
      .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .all(...(query.parameters as unknown[]))
      .map((row) => (row as { detail: string }).detail)
      .join('\n');
  }

  /** Every read of work_items goes through an index, and never the one of every status. */
  function expectIndexed(plan: string, index: RegExp): void {
    const reads = plan.split('\n').filter((line) => /\bwork_items\b/.test(line));
    expect(reads.length, plan).toBeGreaterThan(0);
    for (const line of reads) expect(line, plan).toMatch(/USING (COVERING )?INDEX/);
    expect(plan, plan).toMatch(index);
    expect(plan, plan).not.toMatch(/work_items_status_queue/);
  }

  for (const { label, query } of SHAPES) {
    it(`a claim (${label}) reads its own items and the queue's head through indexes`, async () => {
      captured = [];
      const candidates = await sqliteStatements(kysely, DEPENDENT_NOTES).claimCandidates(query, AGENTS);
      expect(candidates.queued.length).toBe(AGENTS.length);
      expect(candidates.queued.every(({ row }) => row.type === (query.types ? 'bench' : row.type))).toBe(true);
      // None of the items at the head of the queue that wait on a dependency.
      expect(candidates.queued.every(({ row }) => row.waiting_on === 0)).toBe(true);
      const reads = captured.filter((q) => /FROM work_items\b/.test(q.sql));
      // One read of each agent's own items, one of the queue.
      expect(reads).toHaveLength(AGENTS.length + 1);
      expectIndexed(explain(reads[0]!), /work_items_agent_status/);
      const index = query.types
        ? /work_items_claimable_type/
        : query.project_id
          ? /work_items_claimable_project/
          : /work_items_claimable\b/;
      expectIndexed(explain(reads.at(-1)!), index);
    });

    it(`the next run_after (${label}) is read through work_items_due`, async () => {
      captured = [];
      expect(await sqliteStatements(kysely, DEPENDENT_NOTES).nextRunAfter(query)).toBe(
        query.types ? null : '2026-12-01T00:00:00.000Z',
      );
      expectIndexed(explain(captured[0]!), /work_items_due/);
    });
  }

  it("the sweep's plans to settle are read from the open containers alone", async () => {
    captured = [];
    expect(await sqliteStatements(kysely, DEPENDENT_NOTES).plansToSettle(PLAN_HOLD, 50)).toEqual([]);
    const plan = explain(captured[0]!);
    expect(plan, plan).toMatch(/^SCAN p USING INDEX work_items_open_containers$/m);
    for (const line of plan.split('\n').filter((line) => /^(SCAN|SEARCH)/.test(line))) {
      expect(line, plan).toMatch(/USING (COVERING )?INDEX/);
    }
    expect(plan, plan).not.toMatch(/work_items_status_queue/);
  });
});
