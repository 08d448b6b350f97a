import type { ExpressionBuilder } from 'kysely';
import type { DatabaseHandle, DatabaseSchema } from '../../shared/db/schema.js';
import type { WorkFilter, WorkStatements } from './port.js';

// GET /work on PostgreSQL: a filter of one equality lists the newest first by walking that
// column's own index, whatever the statistics (docs/design-decisions.md, "Right before the first
// ANALYZE"); every other filter and order is cross-dialect.ts's statement.

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
  return (filter, order, after, limit) => {
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
