import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import { crossDialectStatements } from '../../src/work/store/cross-dialect.js';
import type { ClaimQuery, PagePosition, WorkFilter } from '../../src/work/store/port.js';
import { type Statement, postgresStatements } from '../../src/work/store/postgres.js';
import type { DatabaseSchema } from '../../src/shared/db/schema.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// Each claim, timer and list statement as the store sends it, run on a freshly filled work_items
// never analysed (a new database before autovacuum's first ANALYZE): no plan node may read more
// than BOUND rows of a table tens of thousands long, planned for its values or kept generic.

const ITEMS = 30_000;
const BOUND = 500;
const TYPES = 50;
const PROJECTS = 25;
const NOW = '2026-11-01T00:00:00.000Z';
const id = (kind: string, n: number) => `00000000-0000-4000-${kind}-${String(n).padStart(12, '0')}`;
const item = (n: number) => id('8000', n);
const project = (n: number) => id('9000', n);
/** `$2` % of the items are queued (a type per block of 100), 3 % in progress, 1 % dispatched, the rest final. */
const SEED = `INSERT INTO work_items (id, type, description, priority, status, assigned_agent, created_by, created_at,
    updated_at, completed_at, outcome, project_id, run_after, waiting_on, parent_id)
  SELECT ('00000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid, 'type-' || (n / 100) % ${TYPES}, 'item ' || n,
    1 + n % 5, s.status, CASE WHEN s.status <> 'queued' THEN 'agent-' || n % 40 END, 'person-' || n % 12,
    timestamptz '2026-10-01T00:00:00Z' + n * interval '1 minute', timestamptz '2026-10-01T00:00:00Z' + n * interval '1 minute',
    CASE WHEN s.status IN ('completed', 'failed', 'cancelled') THEN timestamptz '2026-10-01T00:00:00Z' + n * interval '2 minute' END,
    CASE WHEN s.status = 'completed' THEN 'success' END,
    CASE WHEN n % 31 <> 0 THEN ('00000000-0000-4000-9000-' || lpad((n % ${PROJECTS})::text, 12, '0'))::uuid END,
    CASE WHEN s.status = 'queued' AND n % 13 = 0 THEN timestamptz '2026-12-01T00:00:00Z' + n * interval '1 second' END,
    CASE WHEN s.status = 'queued' AND n % 17 = 0 THEN 1 ELSE 0 END,
    CASE WHEN n % 500 BETWEEN 1 AND 5 AND n > 500 THEN ('00000000-0000-4000-8000-' || lpad((n - n % 500)::text, 12, '0'))::uuid END
  FROM generate_series(1, $1::int) AS n
  CROSS JOIN LATERAL (SELECT CASE WHEN n % 100 < $2 THEN 'queued' WHEN n % 100 < $2 + 3 THEN 'in_progress'
    WHEN n % 100 < $2 + 4 THEN 'dispatched' WHEN n % 3 = 0 THEN 'failed' WHEN n % 7 = 0 THEN 'cancelled'
    ELSE 'completed' END AS status) s`;

const CLAIMS: { label: string; query: ClaimQuery }[] = [
  { label: 'any type', query: { types: null, project_id: null, now: NOW } },
  { label: 'types with nothing to take', query: { types: ['absent', 'also-absent'], project_id: null, now: NOW } },
  { label: 'types', query: { types: ['type-3', 'type-7'], project_id: null, now: NOW } },
  { label: 'project', query: { types: null, project_id: project(5), now: NOW } },
  { label: 'type and project', query: { types: ['type-3'], project_id: project(5), now: NOW } },
  { label: 'a project with nothing to take', query: { types: null, project_id: project(99), now: NOW } },
];
/** An agent with dispatched items of its own (agent-9: n % 100 = 9), one with none. */
const AGENTS = ['agent-9', 'agent-1', 'agent-none'];

const LISTS: { label: string; filter: WorkFilter }[] = [
  { label: 'everything', filter: {} },
  { label: 'status=queued', filter: { statuses: ['queued'] } },
  { label: 'status=completed', filter: { statuses: ['completed'] } },
  { label: 'status=queued,in_progress', filter: { statuses: ['queued', 'in_progress'] } },
  { label: 'agent', filter: { agent: 'agent-9' } },
  { label: 'an agent with nothing', filter: { agent: 'agent-none' } },
  { label: 'status and agent', filter: { statuses: ['in_progress'], agent: 'agent-7' } },
  { label: 'project_id', filter: { project_id: project(5) } },
  { label: 'type', filter: { type: 'type-3' } },
  { label: 'a type with nothing', filter: { type: 'absent' } },
  { label: 'created_by', filter: { created_by: 'person-4' } },
  { label: 'parent_id', filter: { parent_id: item(1000) } },
  { label: 'ready=true', filter: { ready: { now: NOW, ready: true } } },
  { label: 'ready=false', filter: { ready: { now: NOW, ready: false } } },
  { label: 'ready=true and type', filter: { ready: { now: NOW, ready: true }, type: 'type-3' } },
  { label: 'status=queued and type', filter: { statuses: ['queued'], type: 'type-3' } },
];

/**
 * List shapes that still read past their filter before ANALYZE: guessing one match in two
 * hundred, the planner sorts a bitmap of every match, or walks the newest items filtering them.
 * Skipped, not hidden: each runs here once its statement no longer does.
 */
const UNBOUNDED = new Set([
  // No index leads with the column and then the priority (four more, written on every move).
  ...['agent', 'project_id', 'type', 'created_by'].map((label) => `${label} priority`),
  // Each step guessed at one row: a sort of work_items_claimable_type's whole type beats the walk.
  'ready=true and type newest',
  // Each counts rows no index tells from the others (waiting, not yet due, the rest of the table).
  'ready=true counts',
  'ready=false counts',
]);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Plan Rows': number;
  'Total Cost': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Rows Removed by Join Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

const nameOf = (node: PlanNode) =>
  [node['Node Type'], node['Index Name'] ?? node['Relation Name']].filter(Boolean).join(' ');

/** The rows a node read, kept and thrown away, over all its loops. */
function ownReads(node: PlanNode): number {
  const perLoop =
    node['Actual Rows'] +
    (node['Rows Removed by Filter'] ?? 0) +
    (node['Rows Removed by Index Recheck'] ?? 0) +
    (node['Rows Removed by Join Filter'] ?? 0);
  return Math.round(perLoop * node['Actual Loops']);
}

/** Rows each node of the plan read, the largest first. */
function reads(node: PlanNode): { rows: number; node: string }[] {
  const own = { rows: ownReads(node), node: nameOf(node) };
  return [own, ...(node.Plans ?? []).flatMap(reads)].sort((a, b) => b.rows - a.rows);
}

/** A desk long in use (most items final), and a new one just after a burst of submits. */
const DESKS = [
  { desk: 'a desk of mostly final items', queued: 6 },
  { desk: 'a burst of submits', queued: 96 },
];

/** The plan as an indented outline of its nodes: what each read, against what the planner expected. */
function outline(node: PlanNode, depth = 0): string {
  const buffers = (node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0);
  const line = `${'  '.repeat(depth)}${nameOf(node)} (expected ${node['Plan Rows']}, read ${ownReads(node)}, buffers ${buffers}, cost ${node['Total Cost']})`;
  return [line, ...(node.Plans ?? []).map((child) => outline(child, depth + 1))].join('\n');
}

describe.runIf((await storesUnderTest()).includes('postgres')).each(DESKS)(
  'plans without statistics on PostgreSQL: $desk',
  ({ queued }) => {
    let test: TestDatabase;
    let pool: pg.Pool;
    let kysely: Kysely<DatabaseSchema>;
    let captured: Statement[] = [];

    beforeAll(async () => {
      test = await createTestDatabase('postgres');
      const database = await openTestDatabase(test); // migrate
      await database.close();
      // A pool of its own, without the desk's statement timeout: the seed is one statement of
      // tens of thousands of rows, which a loaded CI machine may take seconds over.
      pool = new pg.Pool({ connectionString: test.config.url, max: 1 });
      // No ANALYZE, by the test or by autovacuum while it runs: the planner knows only the pages.
      for (const table of ['work_items', 'dispatch_log'])
        await pool.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      await pool.query(
        `INSERT INTO projects (id, name, name_key, created_at)
       SELECT ('00000000-0000-4000-9000-' || lpad(k::text, 12, '0'))::uuid, 'p' || k, 'p' || k, now()
       FROM generate_series(0, $1::int) AS k`,
        [PROJECTS + 100],
      );
      await pool.query(SEED, [ITEMS, queued]);
      await pool.query(
        `INSERT INTO dispatch_log (id, work_item_id, agent, dispatched_at)
       SELECT gen_random_uuid(), id, assigned_agent, updated_at FROM work_items WHERE assigned_agent IS NOT NULL`,
      );
      kysely = new Kysely<DatabaseSchema>({
        dialect: new PostgresDialect({ pool }),
        log: (event) => void captured.push({ text: event.query.sql, values: [...event.query.parameters] }),
      });
    }, 180_000);
    afterAll(async () => {
      await kysely?.destroy();
      await test?.destroy();
    });

    /** The statements the store sends for `call`, fixed SQL and Kysely's alike, without running the fixed ones. */
    async function statementsOf(call: (store: ReturnType<typeof postgresStatements>) => Promise<unknown>) {
      captured = [];
      const store = postgresStatements(
        kysely,
        async <R>(statement: Statement) => {
          captured.push(statement);
          return [] as R[];
        },
        DEPENDENT_NOTES,
      );
      await call(store);
      return captured;
    }

    /** Plans `statement` with its values, then as the generic plan a connection keeps, and runs both. */
    async function plans(statement: Statement): Promise<{ label: string; plan: PlanNode; text: string }[]> {
      const client = await pool.connect();
      const explain = 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)';
      try {
        await client.query('BEGIN');
        const planned = [
          { label: 'with its values', result: await client.query(`${explain} ${statement.text}`, statement.values) },
        ];
        // Only a named statement is kept: the others are planned for their values every time.
        if (statement.name) {
          await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
          await client.query(`PREPARE kept AS ${statement.text}`);
          // EXECUTE takes literals: an array as an array literal.
          const literal = (value: unknown) =>
            client.escapeLiteral(Array.isArray(value) ? `{${value.join(',')}}` : String(value));
          const args = statement.values.length > 0 ? `(${statement.values.map(literal).join(', ')})` : '';
          planned.push({ label: 'generic', result: await client.query(`${explain} EXECUTE kept${args}`) });
        }
        return planned.map(({ label, result }) => {
          const [{ Plan }] = (result.rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'];
          return { label, plan: Plan, text: outline(Plan) };
        });
      } finally {
        await client.query('ROLLBACK');
        if (statement.name) await client.query('DEALLOCATE kept').catch(() => undefined);
        client.release();
      }
    }

    /** No node of either plan of any of `statements` reads more than `bound` rows. */
    async function expectBounded(statements: Statement[], bound = BOUND): Promise<void> {
      expect(statements.length).toBeGreaterThan(0);
      for (const statement of statements) {
        for (const { label, plan, text } of await plans(statement)) {
          const [largest] = reads(plan);
          expect(
            largest!.rows,
            `${label}: ${largest!.node} read ${largest!.rows} rows\n${statement.text}\n${text}`,
          ).toBeLessThanOrEqual(bound);
        }
      }
    }

    /** The items a statement of counts (a `count` per row) counted. */
    async function counted(statement: Statement): Promise<number> {
      const { rows } = await pool.query<{ count: string }>(statement.text, statement.values);
      return rows.reduce((sum, row) => sum + Number(row.count), 0);
    }

    it('work_items has no statistics, as on a new database', async () => {
      const { rows } = await pool.query<{ analyzed: boolean; n: string }>(
        `SELECT last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL AS analyzed,
         (SELECT count(*) FROM work_items) AS n FROM pg_stat_user_tables WHERE relid = 'work_items'::regclass`,
      );
      expect(rows).toEqual([{ analyzed: false, n: String(ITEMS) }]);
      const stats = await pool.query(
        `SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'work_items'`,
      );
      expect(stats.rowCount).toBe(0);
    });

    for (const { label, query } of CLAIMS) {
      it(`a claim (${label}), each agent's own dispatched item among it, reads no more than ${BOUND} rows`, async () => {
        await expectBounded(await statementsOf((store) => store.claimCandidates(query, AGENTS)));
      });
    }

    // The wake-up timer's two reads, as the claims module sends them (unfiltered).
    it(`the next run_after reads no more than ${BOUND} rows`, async () => {
      await expectBounded(await statementsOf((store) => store.nextRunAfter(CLAIMS[0]!.query)));
    });

    it(`the items that came due read no more than those it counts (give or take ${BOUND})`, async () => {
      const [statement] = await statementsOf((store) =>
        store.cameDue('2026-12-01T00:00:00.000Z', '2026-12-01T00:30:00.000Z'),
      );
      await expectBounded([statement!], (await counted(statement!)) + BOUND);
    });

    for (const { label, filter } of LISTS) {
      for (const order of ['newest', 'priority'] as const) {
        it.skipIf(UNBOUNDED.has(`${label} ${order}`))(
          `GET /work (${label}, sort=${order}) reads no more than ${BOUND} rows`,
          async () => {
            await expectBounded(await statementsOf((store) => store.listWorkItems(filter, order, null, 51)));
          },
        );
      }

      // PostgreSQL's own listings answer what the cross-dialect statement does, page by page.
      it(`GET /work (${label}) answers the cross-dialect statement's pages`, async () => {
        const general = crossDialectStatements(kysely);
        const store = postgresStatements(kysely, async () => [], DEPENDENT_NOTES);
        for (const order of ['newest', 'priority'] as const) {
          let after: PagePosition | null = null;
          for (let page = 0; page < 3; page += 1) {
            const expected = await general.listWorkItems(filter, order, after, 51);
            const answered = await store.listWorkItems(filter, order, after, 51);
            expect(answered.map((row) => row.id)).toEqual(expected.map((row) => row.id));
            const last = expected.at(-1);
            if (!last) break;
            after = { created_at: last.created_at, id: last.id, priority: last.priority };
          }
        }
      });

      it.skipIf(UNBOUNDED.has(`${label} counts`))(
        `GET /work/counts (${label}) reads no row it does not count (give or take ${BOUND})`,
        async () => {
          const [statement] = await statementsOf((store) => store.countByStatus(filter));
          await expectBounded([statement!], (await counted(statement!)) + BOUND);
        },
      );
    }
  },
);
