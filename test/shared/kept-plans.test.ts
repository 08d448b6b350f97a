import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import { createPostgresDedupeStore, saveQuery } from '../../src/classify/dedupe/store/postgres.js';
import type { Database } from '../../src/shared/db/database.js';
import type { ItemChange } from '../../src/work/store/port.js';
import { type Statement, changesQuery, postgresStatements } from '../../src/work/store/postgres.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// The plan a connection keeps for the change statement (every claim, completion and edit), for
// the read of items by id (every change that does not start from the claimer's copy) and for the
// dedupe's claim and save (every classification), made while the table is small and has no statistics (a new database, or autovacuum off): it stays
// as the table grows, so it must find the items by primary key from the start. Hashing a table
// of a few hundred items looks cheaper than a hundred probes; at a million items it is a full
// scan per claim (migration 016).

const NOW = '2026-11-27T00:00:00.000Z';
const ITEMS = 300;

describe.skipIf(!(await storesUnderTest()).includes('postgres'))(
  'plans kept for a table without statistics (PostgreSQL)',
  () => {
    let test: TestDatabase;
    let database: Database;
    let pool: pg.Pool;
    let ids: string[];

    beforeAll(async () => {
      test = await createTestDatabase('postgres');
      database = await openTestDatabase(test);
      pool = database.pool as pg.Pool;
      // No ANALYZE, and none by autovacuum while the test runs: the planner sizes the table by its
      // pages, as on a new database.
      for (const table of ['work_items', 'classify_messages'])
        await pool.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      await pool.query(
        `INSERT INTO classify_messages (record_key, fingerprint, state, created_at, updated_at)
       SELECT 'id:' || n, 'fp' || n, 'pending', now(), now() FROM generate_series(1, $1::int) AS n`,
        [ITEMS],
      );
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
       SELECT gen_random_uuid(), 'bench', 'item ' || n, 3, 'queued', 'ann', now(), now()
       FROM generate_series(1, $1::int) AS n RETURNING id`,
        [ITEMS],
      );
      ids = rows.map((row) => row.id);
    });
    afterAll(async () => {
      await database?.close();
      await test?.destroy();
    });

    function claimOf(id: string): ItemChange {
      return {
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
      };
    }

    /** The generic plan, the one PostgreSQL keeps after the statement's first runs, run as `statement` says. */
    async function keptPlan(statement: { text: string; values: unknown[] }): Promise<string> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
        await client.query(`PREPARE kept_changes AS ${statement.text}`);
        // EXECUTE takes literals: an id list as an array literal, the JSON as text.
        const literal = (value: unknown) =>
          client.escapeLiteral(Array.isArray(value) ? `{${value.join(',')}}` : String(value));
        const literals = statement.values.map(literal).join(', ');
        const explained = await client.query(
          `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE kept_changes(${literals})`,
        );
        return explained.rows.map((row) => row['QUERY PLAN'] as string).join('\n');
      } finally {
        await client.query('ROLLBACK');
        await client.query('DEALLOCATE kept_changes').catch(() => undefined);
        client.release();
      }
    }

    it('the tables have no statistics, as on a new database', async () => {
      const { rows } = await pool.query<{ relname: string; analyzed: boolean }>(
        `SELECT relname, last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS analyzed FROM pg_stat_user_tables
       WHERE relid IN ('work_items'::regclass, 'classify_messages'::regclass) ORDER BY relname`,
      );
      expect(rows).toEqual([
        { relname: 'classify_messages', analyzed: false },
        { relname: 'work_items', analyzed: false },
      ]);
    });

    it("one claim's write finds its item by primary key, not by scanning the table", async () => {
      const plan = await keptPlan(changesQuery([claimOf(ids[7]!)], DEPENDENT_NOTES));
      expect(plan, plan).not.toMatch(/Seq Scan on work_items/);
      expect(plan, plan).toMatch(/work_items_pkey/);
      expect(plan, plan).toMatch(/Update on work_items w \(actual rows=1 /);
    });

    it('a batch of claims finds its items by primary key, not by scanning the table', async () => {
      const plan = await keptPlan(changesQuery(ids.slice(20, 52).map(claimOf), DEPENDENT_NOTES));
      expect(plan, plan).not.toMatch(/Seq Scan on work_items/);
      expect(plan, plan).toMatch(/work_items_pkey/);
      expect(plan, plan).toMatch(/Update on work_items w \(actual rows=32 /);
    });

    it('the read of items by id (with their dispatch logs) finds each by primary key, not by scanning the table', async () => {
      const captured: Statement[] = [];
      const statements = postgresStatements(
        database.kysely,
        async <R>(statement: Statement) => {
          captured.push(statement);
          return [] as R[];
        },
        DEPENDENT_NOTES,
      );
      await statements.findManyWithDispatches(ids.slice(100, 103));
      expect(captured).toHaveLength(1);
      const plan = await keptPlan({ text: captured[0]!.text, values: captured[0]!.values });
      expect(plan, plan).not.toMatch(/Seq Scan on work_items/);
      expect(plan, plan).toMatch(/work_items_pkey/);
      expect(plan, plan).toMatch(/Index Scan using work_items_pkey on work_items \(actual rows=1 loops=3\)/);
    });

    it("the dedupe's save finds its records by primary key, not by scanning the table", async () => {
      const statement = saveQuery([
        { record_key: 'id:7', fingerprint: 'fp7', result: '{}', now: NOW, usage: null },
        { record_key: 'id:290', fingerprint: 'fp290', result: null, now: NOW, usage: null },
      ]);
      const plan = await keptPlan({ text: statement.text, values: statement.values ?? [] });
      expect(plan, plan).not.toMatch(/Seq Scan on classify_messages/);
      expect(plan, plan).toMatch(/classify_messages_pkey/);
      expect(plan, plan).toMatch(/Update on classify_messages m \(actual rows=2 /);
    });

    it("the dedupe's claim reads a content's owner by primary key, not by scanning the table", async () => {
      // The store's statement as it reaches the pool, without running it.
      let captured: pg.QueryConfig | undefined;
      const capturing = { query: async (config: pg.QueryConfig) => ((captured = config), { rows: [], rowCount: 0 }) };
      const store = createPostgresDedupeStore(capturing as unknown as pg.Pool, () =>
        Promise.reject(new Error('no transaction here')),
      );
      const served = { kind: 'duplicate' as const, at: NOW, provider: 'openai' as const, model: 'gpt-4.1-mini' };
      await store
        .claim({
          thread_key: 't',
          record_key: 'id:7',
          fingerprint: 'fp7',
          fingerprint_key: 's:fp7',
          conversation_id: null,
          now: NOW,
          served,
        })
        .catch(() => undefined);
      const plan = await keptPlan({ text: captured!.text, values: captured!.values ?? [] });
      expect(plan, plan).not.toMatch(/Seq Scan on classify_messages/);
      expect(plan, plan).toMatch(/Index Scan using classify_messages_pkey on classify_messages /);
    });
  },
);
