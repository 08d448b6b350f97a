import { createHash } from 'node:crypto';
import type pg from 'pg';
import { dispatchLogJsonSql, summaryJsonSql, timeSql } from './item-view.js';
import type { ItemChange, ItemWithDispatches, NewEvent } from './store.js';
import type { DispatchRow, NewHistory, WorkItemRow } from './tables.js';

// The hot paths of the agent loop on PostgreSQL, each one statement and so one round trip:
// submitting, claiming, and a change guarded by the version it was computed from. Data-modifying
// CTEs commit together, so the item, its dispatch entry and its event are still written
// atomically. Every statement is named, so each connection parses and plans it once.

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

function placeholders(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
}

export function named(text: string): { name: string; text: string } {
  return { name: `agentdesk_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`, text };
}

const ITEM_CTE = `WITH item AS (INSERT INTO work_items (${ITEM_COLUMNS.join(', ')}) VALUES (${placeholders(1, ITEM_COLUMNS.length)}))`;
const EVENT_INSERT = (from: number) => `INSERT INTO events (type, data, created_at) VALUES (${placeholders(from, 3)})`;
const HISTORY_COLUMNS = ['at', 'actor', 'role', 'action', 'changes'] as const satisfies readonly (keyof NewHistory)[];
/** The history entry of the new item: its id is the statement's first parameter. */
const HISTORY_CTE = (from: number) =>
  `history AS (INSERT INTO work_history (work_item_id, ${HISTORY_COLUMNS.join(', ')}) VALUES ($1, ${placeholders(from, HISTORY_COLUMNS.length)}))`;
const CREATE_ITEM = named(
  `${ITEM_CTE}, ${HISTORY_CTE(ITEM_COLUMNS.length + 1)} ${EVENT_INSERT(ITEM_COLUMNS.length + HISTORY_COLUMNS.length + 1)}`,
);
const CREATE_DISPATCHED_ITEM = named(
  `${ITEM_CTE}, ${HISTORY_CTE(ITEM_COLUMNS.length + 1)}, dispatch AS (INSERT INTO dispatch_log (${DISPATCH_COLUMNS.join(', ')}) VALUES (${placeholders(
    ITEM_COLUMNS.length + HISTORY_COLUMNS.length + 1,
    DISPATCH_COLUMNS.length,
  )})) ${EVENT_INSERT(ITEM_COLUMNS.length + HISTORY_COLUMNS.length + DISPATCH_COLUMNS.length + 1)}`,
);

export async function createItemPostgres(
  pool: pg.Pool,
  row: WorkItemRow,
  dispatch: DispatchRow | null,
  event: NewEvent,
  history: NewHistory,
): Promise<void> {
  const eventValues = [event.type, event.data, event.at];
  const itemValues = [...ITEM_COLUMNS.map((column) => row[column]), ...HISTORY_COLUMNS.map((column) => history[column])];
  await pool.query(
    dispatch
      ? { ...CREATE_DISPATCHED_ITEM, values: [...itemValues, ...DISPATCH_COLUMNS.map((c) => dispatch[c]), ...eventValues] }
      : { ...CREATE_ITEM, values: [...itemValues, ...eventValues] },
  );
}

export interface RowWithLog extends WorkItemRow {
  dispatch_log: DispatchRow[];
}

export function split({ dispatch_log, ...row }: RowWithLog): ItemWithDispatches {
  return { row, dispatches: dispatch_log };
}

const FIND_WITH_LOG = named(`SELECT w.*, ${dispatchLogJsonSql('w.id')} AS dispatch_log FROM work_items w WHERE w.id = $1`);

export async function findWithDispatchesPostgres(pool: pg.Pool, id: string): Promise<ItemWithDispatches | undefined> {
  const { rows } = await pool.query<RowWithLog>({ ...FIND_WITH_LOG, values: [id] });
  return rows[0] ? split(rows[0]) : undefined;
}

/**
 * True when `change` can be one statement: not when it closes a dispatch entry and opens the
 * next, because the sub-statements of one statement run in no set order and the index that
 * allows one open entry per item would see two.
 */
export function isSingleStatementChange(change: ItemChange): boolean {
  return !(change.closeDispatch && change.openDispatch);
}

/** The change as one statement; resolves false when the item is gone or its version moved on. */
export async function applyChangePostgres(pool: pg.Pool, change: ItemChange): Promise<boolean> {
  const columns = Object.keys(change.set) as (keyof ItemChange['set'])[];
  const values: unknown[] = [change.id, change.from_version, ...columns.map((column) => change.set[column])];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const assignments = columns.map((column, index) => `${column} = $${index + 3}`).join(', ');
  const parts = [`WITH changed AS (UPDATE work_items SET ${assignments} WHERE id = $1 AND version = $2 RETURNING id)`];
  if (change.closeDispatch) {
    const { at, outcome, reason } = change.closeDispatch;
    parts.push(`closed AS (UPDATE dispatch_log SET completed_at = ${param(at)}, outcome = ${param(outcome)}, reason = ${param(reason)}
      WHERE work_item_id = $1 AND completed_at IS NULL AND EXISTS (SELECT 1 FROM changed))`);
  }
  if (change.openDispatch) {
    const opened = change.openDispatch;
    const list = DISPATCH_COLUMNS.map((column) => param(opened[column])).join(', ');
    parts.push(`opened AS (INSERT INTO dispatch_log (${DISPATCH_COLUMNS.join(', ')}) SELECT ${list} FROM changed)`);
  }
  const history = HISTORY_COLUMNS.map((column) => param(change.history[column])).join(', ');
  parts.push(`history AS (INSERT INTO work_history (work_item_id, ${HISTORY_COLUMNS.join(', ')}) SELECT $1, ${history} FROM changed)`);
  const { type, data, at } = change.event;
  parts.push(`event AS (INSERT INTO events (type, data, created_at) SELECT ${param(type)}, ${param(data)}, ${param(at)} FROM changed)`);
  const text = `${parts.join(', ')} SELECT count(*)::int AS changed FROM changed`;
  const { rows } = await pool.query<{ changed: number }>({ ...named(text), values });
  return rows[0]!.changed === 1;
}
