import { type ExpressionBuilder, type RawBuilder, sql } from 'kysely';
import type { DatabaseHandle, DatabaseSchema } from '../../shared/db/schema.js';
import type { SortOrder } from '../api-contract.js';
import type { PagePosition, WorkFilter, WorkStatements } from './port.js';
import type { WorkItemRow } from './tables.js';

// GET /work on PostgreSQL: the filters an index serves walk it, planned so whatever the statistics
// (docs/design-decisions.md, "GET /work walks an index before ANALYZE"); every other filter is
// cross-dialect.ts's statement.

/** The filters a newest-first walk serves, each by the index (column, created_at, id) of migration 001 or 003. */
const LEADS = {
  statuses: 'status',
  agent: 'assigned_agent',
  project_id: 'project_id',
  type: 'type',
  created_by: 'created_by',
} as const;

type Lead = (typeof LEADS)[keyof typeof LEADS];

/** The lead column and its values when `filter` is one equality (or one list of statuses) and nothing else. */
function leadOf(filter: WorkFilter): { column: Lead; values: string[] } | null {
  const keys = Object.entries(filter).filter(([, value]) => value !== undefined);
  if (keys.length !== 1) return null;
  const [key, value] = keys[0]!;
  if (!(key in LEADS)) return null;
  const values = Array.isArray(value) ? [...new Set(value as string[])] : [value as string];
  return values.length > 0 ? { column: LEADS[key as keyof typeof LEADS], values } : null;
}

export function postgresListWorkItems(
  db: DatabaseHandle,
  general: WorkStatements['listWorkItems'],
): WorkStatements['listWorkItems'] {
  return async (filter, order, after, limit) => {
    const walks = walksOf(filter, order);
    if (walks) {
      const query = merged(
        walks.map((where) => steppedWalk(where, order, after, limit)),
        order,
        limit,
      );
      return (await query.execute(db)).rows;
    }
    const lead = order === 'newest' ? leadOf(filter) : null;
    if (!lead) return general(filter, order, after, limit);
    const { column } = lead;
    // The equality as two row comparisons over the index's leading columns: the same rows
    // (created_at is never null), but priced at a third each before ANALYZE, not one row in
    // two hundred, so the walk that stops after `limit` entries beats a sort of every match.
    // Ordering by the column too (one value in each walk) makes the index order the answer's.
    const walk = (value: string) =>
      db
        .selectFrom('work_items')
        .selectAll()
        .where((eb: ExpressionBuilder<DatabaseSchema, 'work_items'>) =>
          eb.and([
            eb(eb.refTuple(column, 'created_at'), '>=', eb.tuple(value, '-infinity')),
            after
              ? eb(eb.refTuple(column, 'created_at', 'id'), '<', eb.tuple(value, after.created_at, after.id))
              : eb(eb.refTuple(column, 'created_at'), '<=', eb.tuple(value, 'infinity')),
          ]),
        )
        .orderBy(column, 'desc')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit);
    const [first, ...others] = lead.values.map(walk);
    if (others.length === 0) return first!.execute();
    // Several statuses: one walk each, the newest `limit` of their union.
    const union = others.reduce(
      (all, next, n) => all.unionAll(db.selectFrom(next.as(`w${n + 1}`)).selectAll()),
      db.selectFrom(first!.as('w0')).selectAll(),
    );
    return db
      .selectFrom(union.as('walks'))
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  };
}

type Condition = (alias: RawBuilder<unknown>) => RawBuilder<unknown>;

/** A walk: the rows `where` keeps, and of those the ones whose `lead` column holds its value (see `steppedWalk`). */
interface Walk {
  where: Condition;
  lead?: { column: 'status' | 'type'; value: string };
}

const ORDERS = {
  newest: { columns: ['created_at', 'id'], direction: ' DESC', past: '<' },
  priority: { columns: ['priority', 'created_at', 'id'], direction: '', past: '>' },
} as const;

/**
 * The rows `where` keeps, in `order` from `after`, read one index entry per step: a recursive
 * query whose every step is `ORDER BY … LIMIT 1`, which the planner reads from the index in
 * that order unless it guesses no more than a row or two kept (then a sort of what it guessed
 * costs the same). A walk with a `lead` says it as row comparisons, as `postgresListWorkItems`
 * does, so that the guess is a third and not one row in two hundred.
 */
function steppedWalk({ where, lead }: Walk, order: SortOrder, after: PagePosition | null, limit: number) {
  const { direction, past } = ORDERS[order];
  const columns: string[] = [...(lead ? [lead.column] : []), ...ORDERS[order].columns];
  // Bounds of the column after the lead, from the walk's first entry to its last: every time, or every integer.
  const [near, far] = order === 'newest' ? (['infinity', '-infinity'] as const) : ([-2147483648, 2147483647] as const);
  const back = past === '<' ? '>' : '<';
  const tuple = (alias: string) => sql.raw(`(${columns.map((column) => `${alias}.${column}`).join(', ')})`);
  const orderBy = (alias: string) => sql.raw(columns.map((column) => `${alias}.${column}${direction}`).join(', '));
  const pair = (alias: string) => sql.raw(`(${alias}.${columns[0]}, ${alias}.${columns[1]})`);
  const kept = (alias: string) =>
    lead
      ? sql`${pair(alias)} ${sql.raw(back)}= (${lead.value}, ${far}) AND ${where(sql.raw(alias))}`
      : where(sql.raw(alias));
  const position: Record<string, unknown> | null = after && { ...after, ...(lead && { [lead.column]: lead.value }) };
  const from = position
    ? sql` AND ${tuple('w')} ${sql.raw(past)} (${sql.join(columns.map((column) => position[column]))})`
    : lead
      ? sql` AND ${pair('w')} ${sql.raw(past)}= (${lead.value}, ${near})`
      : sql``;
  return sql`SELECT (w).* FROM (WITH RECURSIVE walk AS (
      (SELECT w, 1 AS n FROM work_items w WHERE ${kept('w')}${from} ORDER BY ${orderBy('w')} LIMIT 1)
      UNION ALL
      SELECT (SELECT x FROM work_items x WHERE ${kept('x')}
          AND ${tuple('x')} ${sql.raw(past)} ${tuple('(walk.w)')} ORDER BY ${orderBy('x')} LIMIT 1), walk.n + 1
      FROM walk WHERE (walk.w).id IS NOT NULL AND walk.n < ${limit}
    ) SELECT w FROM walk) s WHERE (w).id IS NOT NULL`;
}

/** Several walks' rows in `order`, cut to the page. */
function merged(walks: RawBuilder<unknown>[], order: SortOrder, limit: number) {
  if (walks.length === 1) return sql<WorkItemRow>`${walks[0]!}`;
  return sql<WorkItemRow>`SELECT * FROM (${sql.join(walks, sql` UNION ALL `)}) m
    ORDER BY ${sql.raw(ORDERS[order].columns.map((column) => `${column}${ORDERS[order].direction}`).join(', '))}
    LIMIT ${limit}`;
}

/**
 * The walks a filter's list is, or null for the cross-dialect statement: by status in queue
 * order (work_items_status_queue, a walk per status); the items claimable now
 * (work_items_claimable in queue order; newest first, the queued ones of work_items_status_newest,
 * the others passed over); the queued items of a type (migration 034).
 */
function walksOf(filter: WorkFilter, order: SortOrder): Walk[] | null {
  const { statuses, ready, type, ...others } = filter;
  if (Object.values(others).some((value) => value !== undefined) || ready?.ready === false) return null;
  if (statuses !== undefined && ready !== undefined) return null;
  // `waiting_on < 1` as work_items_claimable's predicate says it (migration 033), for the same reason.
  const due: Condition = (a) =>
    sql`${a}.waiting_on < 1 AND (${a}.run_after IS NULL OR ${a}.run_after <= ${ready?.now})`;
  const queued: Condition = (a) => (ready ? sql`${a}.status = 'queued' AND ${due(a)}` : sql`${a}.status = 'queued'`);
  const distinct = [...new Set(statuses ?? [])];
  if (type === undefined) {
    if (order === 'priority' && distinct.length > 0)
      return distinct.map((status) => ({ where: (a) => sql`${a}.status = ${status}` }));
    if (ready)
      return [order === 'priority' ? { where: queued } : { where: due, lead: { column: 'status', value: 'queued' } }];
    return null;
  }
  if (distinct.length !== 1 || distinct[0] !== 'queued') return null;
  // Newest first, the type as row comparisons (as above); in queue order a walk of the type's
  // own queue, its every step read from that index as the only one with both terms and the order.
  return [
    order === 'newest'
      ? { where: queued, lead: { column: 'type', value: type } }
      : { where: (a) => sql`${queued(a)} AND ${a}.type = ${type}` },
  ];
}
