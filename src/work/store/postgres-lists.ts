import { type ExpressionBuilder, sql } from 'kysely';
import type { DatabaseHandle, DatabaseSchema } from '../../shared/db/schema.js';
import type { PagePosition, WorkFilter, WorkStatements } from './port.js';
import type { WorkItemRow } from './tables.js';

// GET /work on PostgreSQL: a filter of one equality walks that column's own index, whatever the
// statistics (docs/design-decisions.md, "Right before the first ANALYZE"); every other filter is
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
    const lead = leadOf(filter);
    if (!lead || (order === 'priority' && lead.column !== 'status')) return general(filter, order, after, limit);
    if (order === 'priority') return (await queueWalks(lead.values, after, limit).execute(db)).rows;
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

/**
 * The items of `statuses` in queue order, each status walked through work_items_status_queue one
 * entry at a time. Ordering by priority, a row comparison on the status would also let the planner
 * read work_items_status_newest in status order and sort its first few "groups" (which, without
 * statistics, it takes for a few rows each): a walk with LIMIT 1 is the index's at any estimate.
 */
function queueWalks(statuses: readonly string[], after: PagePosition | null, limit: number) {
  const walks = statuses.map((status) => {
    const start = after
      ? sql` AND (priority, created_at, id) > (${after.priority}, ${after.created_at}, ${after.id})`
      : sql``;
    return sql`SELECT (w).* FROM (WITH RECURSIVE walk AS (
        (SELECT w, 1 AS n FROM work_items w WHERE status = ${status}${start} ORDER BY priority, created_at, id LIMIT 1)
        UNION ALL
        SELECT (SELECT x FROM work_items x WHERE x.status = ${status}
            AND (x.priority, x.created_at, x.id) > ((walk.w).priority, (walk.w).created_at, (walk.w).id)
            ORDER BY x.priority, x.created_at, x.id LIMIT 1), walk.n + 1
        FROM walk WHERE (walk.w).id IS NOT NULL AND walk.n < ${limit}
      ) SELECT w FROM walk) s WHERE (w).id IS NOT NULL`;
  });
  if (walks.length === 1) return sql<WorkItemRow>`${walks[0]!}`;
  return sql<WorkItemRow>`SELECT * FROM (${sql.join(walks, sql` UNION ALL `)}) m
    ORDER BY priority, created_at, id LIMIT ${limit}`;
}
