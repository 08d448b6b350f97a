import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { named } from '../shared/named-statement.js';
import { dispatchLogJsonSql } from './item-view.js';
import type { ItemChange, ItemWithDispatches, NewEvent } from './store.js';
import type { DispatchRow, NewHistory, WorkItemRow } from './tables.js';

// The hot paths of the agent loop on PostgreSQL, each one statement and so one round trip for a
// whole batch of callers (store.ts coalesces the calls that arrive together): submitting, reading
// items, and changes guarded by the version they were computed from (the claim is in
// store-postgres-claim.ts). A batch goes in as one parameter (an array, or a JSON array read with
// json_populate_record, which types each value as its column), so the text, and its prepared
// plan, do not depend on the batch size. Data-modifying CTEs commit together, so an item, its
// dispatch entry, its history and its event are still written atomically. Every statement is
// named, so each connection parses and plans it once.

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

const columnsOf = (alias: string, columns: readonly string[]) => columns.map((column) => `${alias}.${column}`).join(', ');

// New items, each with its history entry, its first dispatch (if any) and its event: the items
// submitted together in one statement, the batch as one JSON array.
const CREATE_ITEMS = named(`WITH input AS (
    SELECT e.ord, e.value AS v FROM json_array_elements($1::json) WITH ORDINALITY AS e(value, ord)
  ), item AS (
    INSERT INTO work_items (${ITEM_COLUMNS.join(', ')})
    SELECT ${columnsOf('r', ITEM_COLUMNS)} FROM input i CROSS JOIN LATERAL json_populate_record(NULL::work_items, i.v->'r') AS r
    ORDER BY i.ord
  ), history AS (
    INSERT INTO work_history (work_item_id, ${HISTORY_COLUMNS.join(', ')})
    SELECT (i.v->'r'->>'id')::uuid, ${columnsOf('h', HISTORY_COLUMNS)}
    FROM input i CROSS JOIN LATERAL json_populate_record(NULL::work_history, i.v->'h') AS h ORDER BY i.ord
  ), dispatch AS (
    INSERT INTO dispatch_log (${DISPATCH_COLUMNS.join(', ')})
    SELECT ${columnsOf('d', DISPATCH_COLUMNS)} FROM input i CROSS JOIN LATERAL json_populate_record(NULL::dispatch_log, i.v->'d') AS d
    WHERE json_typeof(i.v->'d') = 'object'
  )
  INSERT INTO events (type, data, created_at)
  SELECT i.v->'e'->>'type', i.v->'e'->>'data', (i.v->'e'->>'at')::timestamptz FROM input i ORDER BY i.ord`);

export interface NewItem {
  row: WorkItemRow;
  dispatch: DispatchRow | null;
  event: NewEvent;
  history: NewHistory;
}

export async function createItemsPostgres(pool: pg.Pool, items: NewItem[]): Promise<void[]> {
  await pool.query({ ...CREATE_ITEMS, values: [itemsJson(items)] });
  return items.map(() => undefined);
}

/** The same statement for a connection inside a transaction (Kysely's), where pool.query cannot go. */
export function createItemsQuery(items: readonly NewItem[]): CompiledQuery {
  return CompiledQuery.raw(CREATE_ITEMS.text, [itemsJson(items)]);
}

function itemsJson(items: readonly NewItem[]): string {
  return JSON.stringify(items.map(({ row, dispatch, event, history }) => ({ r: row, d: dispatch, e: event, h: history })));
}

export interface RowWithLog extends WorkItemRow {
  dispatch_log: DispatchRow[];
}

export function split({ dispatch_log, ...row }: RowWithLog): ItemWithDispatches {
  return { row, dispatches: dispatch_log };
}

const FIND_WITH_LOG = named(`SELECT w.*, ${dispatchLogJsonSql('w.id')} AS dispatch_log FROM work_items w WHERE w.id = ANY($1::uuid[])`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Several items with their logs in one round trip (the reads of concurrent changes); undefined for a missing one. */
export async function findManyWithDispatchesPostgres(pool: pg.Pool, ids: string[]): Promise<(ItemWithDispatches | undefined)[]> {
  // Text that is no uuid names no item, and must not fail the others' read.
  const wanted = ids.filter((id) => UUID.test(id));
  const found = new Map<string, ItemWithDispatches>();
  if (wanted.length > 0) {
    const { rows } = await pool.query<RowWithLog>({ ...FIND_WITH_LOG, values: [wanted] });
    for (const row of rows) found.set(row.id.toLowerCase(), split(row));
  }
  return ids.map((id) => found.get(id.toLowerCase()));
}

/**
 * True when `change` can be one statement: not when it closes a dispatch entry and opens the
 * next, because the sub-statements of one statement run in no set order and the index that
 * allows one open entry per item would see two.
 */
export function isSingleStatementChange(change: ItemChange): boolean {
  return !(change.closeDispatch && change.openDispatch);
}

/**
 * Changes of one shape (changeShape) as one statement, whatever their number: the batch goes in
 * as one JSON array, each change is written only if its item is still at its `from_version`,
 * and the answer says which were. No item may appear twice in one batch.
 */
export async function applyChangesPostgres(pool: pg.Pool, changes: ItemChange[]): Promise<boolean[]> {
  const { rows } = await pool.query<{ id: string }>(changesQuery(changes));
  const applied = new Set(rows.map((row) => row.id));
  return changes.map((change) => applied.has(change.id.toLowerCase()));
}

/** The statement and values of applyChangesPostgres (exported so a test can explain its plan). */
export function changesQuery(changes: ItemChange[]): { name: string; text: string; values: unknown[] } {
  const input = changes.map((change) => ({
    id: change.id,
    v: change.from_version,
    s: change.set,
    c: change.closeDispatch ?? null,
    o: change.openDispatch ?? null,
    h: change.history,
    e: change.event,
  }));
  return { ...changeStatement(changes[0]!), values: [JSON.stringify(input), changes.map((change) => change.id)] };
}

/** What decides the text of a change's statement: the columns it sets and the log entries it touches. */
export function changeShape(change: ItemChange): string {
  return `${Object.keys(change.set).join(',')}|${change.closeDispatch ? 'close' : ''}|${change.openDispatch ? 'open' : ''}`;
}

const MAX_CHANGE_STATEMENTS = 256;
const changeStatements = new Map<string, { name: string; text: string }>();

function changeStatement(change: ItemChange): { name: string; text: string } {
  const shape = changeShape(change);
  let statement = changeStatements.get(shape);
  if (statement) return statement;
  // json_populate_record reads each value as its column's type, so no cast is spelled out here.
  const assignments = Object.keys(change.set)
    .map((column) => `${column} = (i.s).${column}`)
    .join(', ');
  const kept = 'i.id IN (SELECT id FROM changed)';
  const parts = [
    `WITH input AS (
      SELECT e.ord, (e.value->>'id')::uuid AS id, (e.value->>'v')::int AS from_version, s, e.value AS v
      FROM json_array_elements($1::json) WITH ORDINALITY AS e(value, ord)
      CROSS JOIN LATERAL json_populate_record(NULL::work_items, e.value->'s') AS s
    )`,
    // The id list ($2) gives the planner what the JSON cannot: a row count (json_array_elements
    // counts as 100 rows, which made it join by hashing the whole table, 2.5 ms at 8,000 items)
    // and a probe of the primary key.
    `changed AS (UPDATE work_items w SET ${assignments} FROM input i
      WHERE w.id = ANY($2::uuid[]) AND w.id = i.id AND w.version = i.from_version RETURNING w.id)`,
  ];
  if (change.closeDispatch) {
    parts.push(`closed AS (UPDATE dispatch_log d SET completed_at = c.completed_at, outcome = c.outcome, reason = c.reason
      FROM input i CROSS JOIN LATERAL json_populate_record(NULL::dispatch_log, json_build_object(
        'completed_at', i.v->'c'->'at', 'outcome', i.v->'c'->'outcome', 'reason', i.v->'c'->'reason')) AS c
      WHERE d.work_item_id = i.id AND d.completed_at IS NULL AND ${kept})`);
  }
  if (change.openDispatch) {
    parts.push(`opened AS (INSERT INTO dispatch_log (${DISPATCH_COLUMNS.join(', ')})
      SELECT ${DISPATCH_COLUMNS.map((column) => `o.${column}`).join(', ')}
      FROM input i CROSS JOIN LATERAL json_populate_record(NULL::dispatch_log, i.v->'o') AS o WHERE ${kept})`);
  }
  parts.push(`history AS (INSERT INTO work_history (work_item_id, ${HISTORY_COLUMNS.join(', ')})
    SELECT i.id, ${HISTORY_COLUMNS.map((column) => `h.${column}`).join(', ')}
    FROM input i CROSS JOIN LATERAL json_populate_record(NULL::work_history, i.v->'h') AS h WHERE ${kept} ORDER BY i.ord)`);
  parts.push(`event AS (INSERT INTO events (type, data, created_at)
    SELECT i.v->'e'->>'type', i.v->'e'->>'data', (i.v->'e'->>'at')::timestamptz FROM input i WHERE ${kept} ORDER BY i.ord)`);
  statement = named(`${parts.join(', ')} SELECT id FROM changed`);
  // Shapes are few (the moves and edits there are); the bound is against a surprise.
  if (changeStatements.size >= MAX_CHANGE_STATEMENTS) changeStatements.clear();
  changeStatements.set(shape, statement);
  return statement;
}
