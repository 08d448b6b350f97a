import type { DispatchEntry, WorkItem, WorkItemSummary } from '../api-contract.js';
import type { DispatchRow, WorkItemRow } from '../store/tables.js';

// How a row becomes what the API, the events and the ETag show. The field lists here are the one
// description of those shapes, read in JavaScript (`toSummary`) and inside PostgreSQL
// (`dispatchLogJsonSql`); the log's order is defined here once (`inDispatchOrder`), not in SQL.

type FieldKind = 'text' | 'int' | 'time' | 'json';

export const SUMMARY_FIELDS = {
  id: 'text',
  type: 'text',
  description: 'text',
  priority: 'int',
  status: 'text',
  assigned_agent: 'text',
  created_by: 'text',
  created_at: 'time',
  updated_at: 'time',
  completed_at: 'time',
  outcome: 'text',
  notes: 'text',
  payload: 'json',
  project_id: 'text',
  version: 'int',
  attempts: 'int',
  max_attempts: 'int',
  retry_delay_s: 'int',
  run_after: 'time',
  lease_expires_at: 'time',
  parent_id: 'text',
  waiting_on: 'int',
} as const satisfies Record<keyof WorkItemSummary, FieldKind>;

export const DISPATCH_FIELDS = {
  id: 'text',
  work_item_id: 'text',
  agent: 'text',
  dispatched_at: 'time',
  completed_at: 'time',
  outcome: 'text',
  reason: 'text',
} as const satisfies Record<keyof DispatchEntry, FieldKind>;

// Written out, not looped over SUMMARY_FIELDS: an object literal of one shape is what V8 builds
// fastest, and a list of 20 is built hundreds of times a second. The type keeps the
// two lists the same: a field missing here, or one too many, does not compile.
export function toSummary(row: WorkItemRow): WorkItemSummary {
  return {
    id: row.id,
    type: row.type,
    description: row.description,
    priority: row.priority,
    status: row.status,
    assigned_agent: row.assigned_agent,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    outcome: row.outcome,
    notes: row.notes,
    payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
    project_id: row.project_id,
    version: row.version,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    retry_delay_s: row.retry_delay_s,
    run_after: row.run_after,
    lease_expires_at: row.lease_expires_at,
    parent_id: row.parent_id,
    waiting_on: row.waiting_on,
  } satisfies Record<keyof typeof SUMMARY_FIELDS, unknown>;
}

export function toDispatchEntry(row: DispatchRow): DispatchEntry {
  return {
    id: row.id,
    work_item_id: row.work_item_id,
    agent: row.agent,
    dispatched_at: row.dispatched_at,
    completed_at: row.completed_at,
    outcome: row.outcome,
    reason: row.reason,
  };
}

export function toWorkItem(row: WorkItemRow, dispatches: readonly DispatchRow[]): WorkItem {
  return {
    ...toSummary(row),
    dispatch_log: inDispatchOrder(dispatches).map(toDispatchEntry),
    comment_count: row.comment_count ?? 0,
    review_required:
      row.review_required === null || row.review_required === undefined ? null : Boolean(row.review_required),
    watchers: namesOf(row.watchers),
  };
}

/** A list of names as a view shows it: the column's JSON array, [] for none (null). */
export function namesOf(column: string | null | undefined): string[] {
  return column ? (JSON.parse(column) as string[]) : [];
}

/** A list of names as its column holds it: null for none, so an empty list and no list are one. */
export function namesColumn(names: readonly string[] | null | undefined): string | null {
  return names && names.length > 0 ? JSON.stringify(names) : null;
}

/** A boolean as the row holds it (0/1 on both databases), or null. */
export function flagOf(value: boolean | null): number | null {
  return value === null ? null : value ? 1 : 0;
}

/**
 * The order of a dispatch log: by when each entry opened. A reassignment closes one entry and
 * opens the next in the same millisecond: the closed one came first (at most one is ever open).
 * Times are ISO 8601 UTC text, so text order is time order.
 */
export function inDispatchOrder(dispatches: readonly DispatchRow[]): DispatchRow[] {
  const key = (entry: DispatchRow) =>
    [entry.dispatched_at, entry.completed_at === null ? 1 : 0, entry.completed_at ?? '', entry.id] as const;
  return [...dispatches].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i += 1) {
      if (ka[i]! < kb[i]!) return -1;
      if (ka[i]! > kb[i]!) return 1;
    }
    return 0;
  });
}

/** The strong ETag of an item: its version. */
export function etagOf(item: { version: number }): string {
  return `"${item.version}"`;
}

const ISO_UTC_SQL = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** PostgreSQL: a timestamp as the API writes it (ISO 8601 UTC with milliseconds), or null. */
export function timeSql(ref: string): string {
  return `to_char(${ref} AT TIME ZONE 'UTC', ${ISO_UTC_SQL})`;
}

function valueSql(alias: string, column: string, kind: FieldKind): string {
  const ref = `${alias}.${column}`;
  if (kind === 'time') return timeSql(ref);
  if (kind === 'json') return `${ref}::json`;
  if (kind === 'text') return `${ref}::text`;
  return ref;
}

function objectSql(alias: string, fields: Record<string, FieldKind>): string {
  const pairs = Object.entries(fields).map(([name, kind]) => `'${name}', ${valueSql(alias, name, kind)}`);
  return `json_build_object(${pairs.join(', ')})`;
}

/** Who made a change: a token's name (or an agent's) and its role; the sweep is `agentdesk`/`system`. */
export interface Actor {
  name: string;
  role: string;
}

export const SYSTEM_ACTOR: Readonly<Actor> = Object.freeze({ name: 'agentdesk', role: 'system' });

/** The data of a work.created or work.updated event: the item's summary and who changed it. */
export function eventData(row: WorkItemRow, actor: Actor): string {
  return JSON.stringify({ ...toSummary(row), actor: { name: actor.name, role: actor.role } });
}

/**
 * PostgreSQL: the dispatch log of the item `itemIdSql` as a JSON array, in no set order, for the
 * statements that read an item with its log in one round trip.
 */
export function dispatchLogJsonSql(itemIdSql: string): string {
  return `(SELECT COALESCE(json_agg(${objectSql('d', DISPATCH_FIELDS)}), '[]'::json) FROM dispatch_log d WHERE d.work_item_id = ${itemIdSql})`;
}

/**
 * PostgreSQL: the data of a work.updated event (`eventData`) for the row `alias`, by the actor
 * the JSON `actorSql` gives: for the rows a statement changes beside the one it was asked to.
 */
export function eventDataSql(alias: string, actorSql: string): string {
  const pairs = Object.entries(SUMMARY_FIELDS).map(([name, kind]) => `'${name}', ${valueSql(alias, name, kind)}`);
  return `json_build_object(${pairs.join(', ')}, 'actor', ${actorSql})::text`;
}
