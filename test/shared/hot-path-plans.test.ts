import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db.js';
import { saveQuery } from '../../src/classify/dedupe-store/postgres.js';
import { changesQuery } from '../../src/work/store-postgres.js';
import { claimQuery } from '../../src/work/store-postgres-claim.js';
import type { ItemChange } from '../../src/work/store.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../helpers/databases.js';

// The claim, the batched change and the dedupe's save on PostgreSQL, planned as the planner
// sees a desk after a burst: statistics taken while every item was queued, then most of them
// finished. All three plans went wrong once under the benchmarks: the claim walked an index of
// every item past ~7,000 finished ones, and a change (like the save) hashed the whole table to
// find a handful of rows.

const QUEUED_AT_ANALYZE = 4_000;
const FINISHED_SINCE = 3_900;

describe.skipIf(!(await storesUnderTest()).includes('postgres'))('hot-path plans on PostgreSQL', () => {
  let test: TestDatabase;
  let database: Database;
  let pool: pg.Pool;
  let ids: string[];

  beforeAll(async () => {
    test = await createTestDatabase('postgres');
    database = await openTestDatabase(test);
    pool = database.pool as pg.Pool;
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

  it('a claim takes the queued items through the claimable index, not past the finished ones', async () => {
    const now = '2026-11-23T00:00:00.000Z';
    const plan = await explain(
      claimQuery({
        types: null,
        project_id: null,
        now,
        event_type: 'work.claimed',
        claimers: ['agent-a', 'agent-b', 'agent-c', 'agent-d'].map((agent) => ({
          agent,
          status: 'in_progress' as const,
          lease_s: 300,
          lease_expires_at: '2026-11-23T00:05:00.000Z',
          dispatch_id: randomUUID(),
          actor: { name: agent, role: 'agent' },
        })),
      }),
    );
    expect(plan).toMatch(/work_items_claimable/);
    expect(plan).not.toMatch(/Seq Scan on work_items/);
    // Four claimers, four of the 100 queued items, and no finished item read on the way.
    expect(plan).toMatch(/Update on work_items w \(actual rows=4 /);
    expect(plan).not.toMatch(/Rows Removed by Filter: \d{3,}/);
  });

  it("the dedupe's save finds its records by primary key, not by hashing the table", async () => {
    await pool.query(
      `INSERT INTO classify_messages (record_key, fingerprint, state, created_at, updated_at)
       SELECT 'id:' || n, 'fp' || n, 'pending', now(), now() FROM generate_series(1, 3000) AS n`,
    );
    await pool.query('ANALYZE classify_messages');
    const now = '2026-11-23T00:00:00.000Z';
    const plan = await explain(
      saveQuery([
        { record_key: 'id:7', fingerprint: 'fp7', result: '{}', now, usage: null },
        { record_key: 'id:2900', fingerprint: 'fp2900', result: null, now, usage: null },
      ]),
    );
    expect(plan).not.toMatch(/Seq Scan on classify_messages/);
    expect(plan).toMatch(/classify_messages_pkey/);
    expect(plan).toMatch(/Update on classify_messages m \(actual rows=2 /);
  });

  it('a batch of changes finds its items by primary key, not by hashing the table', async () => {
    const at = '2026-11-23T00:00:00.000Z';
    const changes: ItemChange[] = ids.slice(-5).map((id) => ({
      id,
      from_version: 1,
      set: { priority: 1, version: 2, updated_at: at },
      event: { type: 'work.updated', data: '{}', at },
      history: { at, actor: 'ann', role: 'admin', action: 'edited', changes: '{}' },
    }));
    const plan = await explain(changesQuery(changes));
    expect(plan).not.toMatch(/Seq Scan on work_items/);
    expect(plan).toMatch(/work_items_pkey/);
    expect(plan).toMatch(/Update on work_items w \(actual rows=5 /);
  });
});
