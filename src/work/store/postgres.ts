import { CompiledQuery, sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import { named } from '../../shared/db/named-statement.js';
import { dispatchLogJsonSql, eventDataSql, timeSql } from '../items/view.js';
import type { DispatchRow, NewHistory, WorkItemRow } from './tables.js';
import {
  type ClaimQuery,
  type ItemChange,
  type ItemWithDispatches,
  type NewItem,
  type ReleasedItem,
  type WorkStatements,
  changeShape,
} from './port.js';
import { crossDialectStatements } from './cross-dialect.js';
import { postgresListWorkItems } from './postgres-lists.js';
import type { DependentNotes } from './dependencies-port.js';

// The work store on PostgreSQL: the statements of port.ts (cross-dialect.ts's, and the hot paths
// written here as fixed SQL), on the connection or transaction given, and nothing else.
// Why each hot path takes a whole batch: docs/design-decisions.md, "Batched statements on PostgreSQL".

export interface Statement {
  name?: string;
  text: string;
  values: unknown[];
}

/**
 * Runs fixed SQL: through the pool as a named (prepared) statement at the top level, through
 * the transaction's connection inside one.
 */
export type RunStatement = <R>(statement: Statement) => Promise<R[]>;

export function runOnPool(pool: { query(statement: Statement): Promise<{ rows: unknown[] }> }): RunStatement {
  return async <R>(statement: Statement) => (await pool.query(statement)).rows as R[];
}

export function runOn(db: DatabaseHandle): RunStatement {
  return async <R>(statement: Statement) =>
    (await db.executeQuery(CompiledQuery.raw(statement.text, statement.values))).rows as R[];
}

interface RowWithLog extends WorkItemRow {
  dispatch_log: DispatchRow[];
}

function split({ dispatch_log, ...row }: RowWithLog): ItemWithDispatches {
  return { row, dispatches: dispatch_log };
}

export function postgresStatements(db: DatabaseHandle, run: RunStatement, notes: DependentNotes): WorkStatements {
  const crossDialect = crossDialectStatements(db);
  return {
    ...crossDialect,
    listWorkItems: postgresListWorkItems(db, crossDialect.listWorkItems),

    async createWorkItems(items) {
      if (items.length > 0) await run({ ...CREATE_ITEMS, values: [itemsJson(items)] });
    },

    async findManyWithDispatches(ids) {
      // Text that is no uuid names no item, and must not fail the others' read.
      const wanted = ids.filter((id) => UUID.test(id));
      const found = new Map<string, ItemWithDispatches>();
      if (wanted.length > 0) {
        for (const row of await run<RowWithLog>({ ...FIND_WITH_LOG, values: [wanted] }))
          found.set(row.id.toLowerCase(), split(row));
      }
      return ids.map((id) => found.get(id.toLowerCase()));
    },

    async applyChanges(changes) {
      const applied = new Set<string>();
      const byShape = new Map<string, ItemChange[]>();
      for (const change of changes) {
        // Closing an entry and opening the next cannot be one statement: its sub-statements run
        // in no set order, and the index that allows one open entry per item would see two.
        const first = change.closeDispatch && change.openDispatch ? { ...change, openDispatch: undefined } : change;
        const shape = changeShape(first);
        byShape.set(shape, [...(byShape.get(shape) ?? []), first]);
      }
      for (const group of byShape.values()) {
        const rows = await run<{ id: string; released?: ReleasedItem[] | null }>(changesQuery(group, notes));
        for (const row of rows) applied.add(row.id);
        // The statement names the dependents it released once, for the whole group.
        const released = rows[0]?.released;
        if (released?.length) group[0]!.released = released;
      }
      for (const change of changes) {
        if (change.closeDispatch && change.openDispatch && applied.has(change.id.toLowerCase())) {
          await db.insertInto('dispatch_log').values(change.openDispatch).execute();
        }
      }
      return changes.map((change) => applied.has(change.id.toLowerCase()));
    },

    async claimCandidates(query, agents) {
      const rows = await run<RowWithLog & { ord: string | null }>(candidatesQuery(query, agents));
      const own: (ItemWithDispatches | null)[] = agents.map(() => null);
      const queued: ItemWithDispatches[] = [];
      for (const { ord, ...row } of rows) {
        if (ord === null) queued.push(split(row));
        else own[Number(ord) - 1] = split(row);
      }
      return { own, queued };
    },

    async nextRunAfter(query) {
      const { text, values } = filtered(query, 2);
      // The first entry of work_items_due: as min() the planner, before ANALYZE, read them all.
      const rows = await run<{ next: string | null }>({
        text: `SELECT run_after AS next FROM work_items WHERE status = 'queued' AND waiting_on < 1 AND run_after > $1${text}
          ORDER BY run_after LIMIT 1`,
        values: [query.now, ...values],
      });
      return rows[0]?.next ?? null;
    },

    lockProject(id) {
      return db.selectFrom('projects').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    },

    async lockGraph() {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended('agentdesk:work_dependencies', 0))`.execute(db);
    },

    async tryLockIdempotencyKey(scope, key) {
      // Length-prefixed so that no two (scope, key) pairs hash the same text.
      const { rows } = await sql<{
        locked: boolean;
      }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${`${scope.length}:${scope}${key}`}, 0)) AS locked`.execute(
        db,
      );
      return rows[0]?.locked === true;
    },
  };
}

/** The claim's type and project filters as SQL terms, numbered from `first`; types are an array parameter. */
function filtered(
  query: Pick<ClaimQuery, 'types' | 'project_id'>,
  first: number,
  alias = '',
): { text: string; values: unknown[] } {
  let text = '';
  const values: unknown[] = [];
  if (query.types) {
    values.push([...new Set(query.types)]);
    text += ` AND ${alias}type = ANY($${first}::text[])`;
  }
  if (query.project_id) {
    values.push(query.project_id);
    text += ` AND ${alias}project_id = $${first + values.length - 1}::uuid`;
  }
  return { text, values };
}

// Why generate_subscripts and not unnest for the arrays of the claim's read: PostgreSQL plans a
// prepared statement afresh for its first five runs on a connection, then keeps one generic plan
// if that costs no more than the fresh ones did. unnest tells the planner the length of an array
// it can see (1 agent, 1 type) and guesses 10 for a parameter, so the generic plan always looked
// ten times dearer and every claim was planned again, planning costing several times the run
// (figures in bench/README.md). generate_subscripts is guessed the same
// (1,000 rows) either way, so from the sixth run the plan is cached; it is the same plan, the
// walks being LATERAL with a LIMIT (test/shared/hot-path-plans.test.ts reads both).
const ELEMENTS_OF_3 = '(SELECT ($3::text[])[i] FROM generate_subscripts($3::text[], 1) AS s(i))';

/**
 * What a batch of claimers may take (port.ts ClaimCandidates), in one statement: each agent's
 * own oldest dispatched item, then as many queued items as agents are left without one. With
 * types, one walk of work_items_claimable_type per type (each in queue order, as few rows as
 * wanted), merged: `type = ANY(...)` over the queue would read past every other type's items.
 * Four shapes (with or without types, project), each its own named statement.
 */
export function candidatesQuery(query: ClaimQuery, agents: readonly string[]): Statement {
  const filter = filtered(query, 3);
  const values = [agents, query.now, ...filter.values];
  const wanted = '(SELECT count(*) FROM req) - (SELECT count(*) FROM own)';
  // Every claimable index's predicate, as the predicate says it (migration 033): priced by
  // the planner as the many rows it is, statistics or not.
  const due = `status = 'queued' AND waiting_on < 1 AND (run_after IS NULL OR run_after <= $2)`;
  // Statistics from a desk of one type make `type = …` look as if it kept every row, and the
  // planner then walked work_items_claimable filtering out every other type's item.
  // The range, which is the equality again, is priced at the planner's default 0.5 % for a
  // range of unknown bounds: the walk of the whole queue then costs what it really can, and the
  // type's own index wins whatever ANALYZE saw. The same for the project.
  const sameType = `type = t.wanted_type AND type >= t.wanted_type AND type <= t.wanted_type`;
  const project = query.project_id
    ? ` AND project_id = $${values.length}::uuid AND project_id >= $${values.length}::uuid AND project_id <= $${values.length}::uuid`
    : '';
  const head = query.types
    ? `SELECT q.* FROM ${ELEMENTS_OF_3} AS t(wanted_type) CROSS JOIN LATERAL (
        SELECT * FROM work_items WHERE ${sameType} AND ${due}${project}
        ORDER BY priority, created_at, id LIMIT ${wanted}) q
      ORDER BY q.priority, q.created_at, q.id LIMIT ${wanted}`
    : `SELECT * FROM work_items WHERE ${due}${project} ORDER BY priority, created_at, id LIMIT ${wanted}`;
  const shape = `${query.types ? 'types' : ''}|${query.project_id ? 'project' : ''}`;
  let statement = candidateStatements.get(shape);
  if (!statement) {
    statement = named(`WITH req AS (
        SELECT ($1::text[])[ord] AS agent, ord FROM generate_subscripts($1::text[], 1) AS r(ord)
      ), own AS (
        SELECT req.ord, m.* FROM req CROSS JOIN LATERAL (
          SELECT * FROM work_items WHERE assigned_agent = req.agent AND status = 'dispatched' AND waiting_on = 0${filter.text}
          ORDER BY created_at, id LIMIT 1
        ) m
      ), head AS (${head})
      SELECT c.*, ${dispatchLogJsonSql('c.id')} AS dispatch_log
      FROM (SELECT * FROM own UNION ALL SELECT NULL::bigint, h.* FROM head h) c
      ORDER BY c.ord NULLS LAST, c.priority, c.created_at, c.id`);
    candidateStatements.set(shape, statement);
  }
  return { ...statement, values };
}

const candidateStatements = new Map<string, { name: string; text: string }>();

/** Every column of a work item, in one order; the type makes a missing one a compile error. */
const ITEM_COLUMN_SET: Record<keyof WorkItemRow, true> = {
  id: true,
  type: true,
  description: true,
  priority: true,
  status: true,
  assigned_agent: true,
  created_by: true,
  created_at: true,
  updated_at: true,
  completed_at: true,
  outcome: true,
  notes: true,
  payload: true,
  project_id: true,
  version: true,
  attempts: true,
  max_attempts: true,
  retry_delay_s: true,
  run_after: true,
  lease_expires_at: true,
  lease_s: true,
  comment_count: true,
  review_required: true,
  parent_id: true,
  waiting_on: true,
  link_version: true,
  container: true,
  watchers: true,
};
export const ITEM_COLUMNS = Object.keys(ITEM_COLUMN_SET) as (keyof WorkItemRow)[];

const DISPATCH_COLUMN_SET: Record<keyof DispatchRow, true> = {
  id: true,
  work_item_id: true,
  agent: true,
  dispatched_at: true,
  completed_at: true,
  outcome: true,
  reason: true,
};
export const DISPATCH_COLUMNS = Object.keys(DISPATCH_COLUMN_SET) as (keyof DispatchRow)[];

const HISTORY_COLUMNS = ['at', 'actor', 'role', 'action', 'changes'] as const satisfies readonly (keyof NewHistory)[];

const columnsOf = (alias: string, columns: readonly string[]) =>
  columns.map((column) => `${alias}.${column}`).join(', ');

// New items, each with its history entry, its first dispatch (if any) and its event: the items
// submitted together in one statement, the batch as one JSON array.
const CREATE_ITEMS = named(`WITH input AS (
    SELECT e.ord, e.value AS v FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(value, ord)
  ), item AS (
    INSERT INTO work_items (${ITEM_COLUMNS.join(', ')})
    SELECT ${columnsOf('r', ITEM_COLUMNS)} FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::work_items, i.v->'r') AS r
    ORDER BY i.ord
  ), history AS (
    INSERT INTO work_history (work_item_id, ${HISTORY_COLUMNS.join(', ')})
    SELECT (i.v->'r'->>'id')::uuid, ${columnsOf('h', HISTORY_COLUMNS)}
    FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::work_history, i.v->'h') AS h ORDER BY i.ord
  ), dispatch AS (
    INSERT INTO dispatch_log (${DISPATCH_COLUMNS.join(', ')})
    SELECT ${columnsOf('d', DISPATCH_COLUMNS)} FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::dispatch_log, i.v->'d') AS d
    WHERE jsonb_typeof(i.v->'d') = 'object'
  )
  INSERT INTO events (type, data, created_at)
  SELECT i.v->'e'->>'type', i.v->'e'->>'data', (i.v->'e'->>'at')::timestamptz FROM input i ORDER BY i.ord`);

function itemsJson(items: readonly NewItem[]): string {
  return JSON.stringify(
    items.map(({ row, dispatch, event, history }) => ({ r: row, d: dispatch, e: event, h: history })),
  );
}

// One probe of the primary key per id, whatever the table's size: as `id = ANY($1)` the plan a
// connection keeps (made on a small table without statistics) scanned the whole table for good.
// OFFSET 0 keeps the lookup a subquery of its own, which the planner would otherwise join by hashing.
const FIND_WITH_LOG = named(`SELECT w.*, ${dispatchLogJsonSql('w.id')} AS dispatch_log
  FROM unnest($1::uuid[]) AS wanted(id) CROSS JOIN LATERAL (SELECT * FROM work_items WHERE id = wanted.id OFFSET 0) w`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The statement and values of a batch of changes of one shape (exported so a test can explain its plan). */
export function changesQuery(
  changes: readonly ItemChange[],
  notes: DependentNotes,
): { name: string; text: string; values: unknown[] } {
  const input = changes.map((change) => ({
    id: change.id,
    v: change.from_version,
    s: change.set,
    c: change.closeDispatch ?? null,
    o: change.openDispatch ?? null,
    h: change.history,
    e: change.event,
    d: change.dependents && change.dependents.kind === 'note' ? change.dependents.note : null,
    l: change.from_link_version ?? null,
  }));
  const values: unknown[] = [JSON.stringify(input)];
  // The effect's constants (event, actor, statuses spared) are the same for the whole batch.
  const effect = changes[0]!.dependents;
  if (effect)
    values.push(
      JSON.stringify({ event: effect.event, actor: effect.actor, unless: effect.kind === 'note' ? effect.unless : [] }),
    );
  return { ...changeStatement(changes[0]!, notes), values };
}

/**
 * What the changed items' end does to their dependents (dependencies-port.ts), in the change's
 * own statement so that it commits with it: one update per dependent however many of its
 * dependencies end in the batch (a row is updated once per statement), with its event. Items of
 * the batch itself are left alone: they are being changed by this statement already.
 */
function dependentsParts(kind: 'release' | 'note', kept: string, notes: DependentNotes): string[] {
  const set = kind === 'release' ? `waiting_on = w.waiting_on - r.n` : `comment_count = w.comment_count + 1`;
  const spared =
    kind === 'note' ? ` AND w.status::text <> ALL(ARRAY(SELECT json_array_elements_text($2::json->'unless')))` : '';
  return [
    `dependents AS (SELECT d.item_id, count(*)::int AS n, max((i.s).updated_at) AS at,
        string_agg(i.v->>'d', E'\n\n' ORDER BY i.ord) AS note
      FROM input i JOIN work_dependencies d ON d.depends_on_id = i.id
      WHERE ${kept} AND d.item_id NOT IN (SELECT id FROM input) GROUP BY d.item_id)`,
    `touched AS (UPDATE work_items w SET ${set}, version = w.version + 1, updated_at = r.at
      FROM dependents r WHERE w.id = r.item_id${spared} RETURNING w.*)`,
    `touched_event AS (INSERT INTO events (type, data, created_at)
      SELECT $2::json->>'event', ${eventDataSql('t', `$2::json->'actor'`)}, t.updated_at FROM touched t ORDER BY t.id)`,
    // The note joins each dependent's timeline as a comment by the desk (the conversation's).
    ...(kind === 'note'
      ? [
          `touched_comment AS (${notes.insertAllSql({ touched: 'touched', dependents: 'dependents', actor: `$2::json->'actor'` })})`,
        ]
      : []),
  ];
}

const MAX_CHANGE_STATEMENTS = 256;
/** The statements made, by shape, for each implementation of the notes (there is one). */
const changeStatementsByNotes = new WeakMap<DependentNotes, Map<string, { name: string; text: string }>>();

function changeStatement(change: ItemChange, notes: DependentNotes): { name: string; text: string } {
  let changeStatements = changeStatementsByNotes.get(notes);
  if (!changeStatements) changeStatementsByNotes.set(notes, (changeStatements = new Map()));
  const shape = changeShape(change);
  let statement = changeStatements.get(shape);
  if (statement) return statement;
  // jsonb_populate_record reads each value as its column's type, so no cast is spelled out here.
  const assignments = Object.keys(change.set)
    .map((column) => `${column} = (i.s).${column}`)
    .join(', ');
  const kept = 'i.id IN (SELECT id FROM changed)';
  const parts = [
    `WITH input AS (
      SELECT e.ord, (e.value->>'id')::uuid AS id, (e.value->>'v')::int AS from_version, s, e.value AS v
      FROM batch_elements($1::jsonb) AS e(value, ord)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::work_items, e.value->'s') AS s
    )`,
    // The batch counts as one row (batch_elements, migration 016), so the plan probes the
    // primary key once per change whatever the table's size or statistics: counted as 100 rows
    // (jsonb_array_elements) it hashed the whole table instead, and the plan a connection keeps
    // for this statement kept doing so when it was made on a small table without statistics.
    `changed AS (UPDATE work_items w SET ${assignments} FROM input i
      WHERE w.id = i.id AND w.version = i.from_version${change.dependents ? ` AND w.link_version = (i.v->>'l')::int` : ''} RETURNING w.id)`,
  ];
  if (change.closeDispatch) {
    parts.push(`closed AS (UPDATE dispatch_log d SET completed_at = c.completed_at, outcome = c.outcome, reason = c.reason
      FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::dispatch_log, jsonb_build_object(
        'completed_at', i.v->'c'->'at', 'outcome', i.v->'c'->'outcome', 'reason', i.v->'c'->'reason')) AS c
      WHERE d.work_item_id = i.id AND d.completed_at IS NULL AND ${kept})`);
  }
  if (change.openDispatch) {
    parts.push(`opened AS (INSERT INTO dispatch_log (${DISPATCH_COLUMNS.join(', ')})
      SELECT ${DISPATCH_COLUMNS.map((column) => `o.${column}`).join(', ')}
      FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::dispatch_log, i.v->'o') AS o WHERE ${kept})`);
  }
  parts.push(`history AS (INSERT INTO work_history (work_item_id, ${HISTORY_COLUMNS.join(', ')})
    SELECT i.id, ${HISTORY_COLUMNS.map((column) => `h.${column}`).join(', ')}
    FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::work_history, i.v->'h') AS h WHERE ${kept} ORDER BY i.ord)`);
  parts.push(`event AS (INSERT INTO events (type, data, created_at)
    SELECT i.v->'e'->>'type', i.v->'e'->>'data', (i.v->'e'->>'at')::timestamptz FROM input i WHERE ${kept} ORDER BY i.ord)`);
  if (change.dependents) parts.push(...dependentsParts(change.dependents.kind, kept, notes));
  // A release answers the dependents it left waiting on nothing, for the commit's signal.
  const released =
    change.dependents?.kind === 'release'
      ? `, (SELECT json_agg(json_build_object('type', t.type, 'project_id', t.project_id, 'run_after', ${timeSql('t.run_after')}))
          FROM touched t WHERE t.waiting_on = 0 AND t.status = 'queued') AS released`
      : '';
  statement = named(`${parts.join(', ')} SELECT id${released} FROM changed`);
  // Shapes are few (the moves and edits there are); the bound is against a surprise.
  if (changeStatements.size >= MAX_CHANGE_STATEMENTS) changeStatements.clear();
  changeStatements.set(shape, statement);
  return statement;
}
