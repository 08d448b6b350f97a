import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { DatabaseHandle, DatabaseSchema } from '../../shared/db/schema.js';
import { crossDialectDependencyStatements } from './dependencies-cross-dialect.js';
import type { WorkFilter, WorkStatements } from './port.js';

// The statements of the work store that are the same SQL on both databases (Kysely writes each in
// the dialect's own syntax): listings, the audit trail, projects, the event log, idempotency keys.
// sqlite.ts and postgres.ts each add the hot paths and locks of their database.

export type CrossDialectStatements = Omit<
  WorkStatements,
  | 'createWorkItems'
  | 'findManyWithDispatches'
  | 'applyChanges'
  | 'claimCandidates'
  | 'nextRunAfter'
  | 'lockProject'
  | 'tryLockIdempotencyKey'
  | 'lockGraph'
>;

export function crossDialectStatements(db: DatabaseHandle): CrossDialectStatements {
  const crossDialect: CrossDialectStatements = {
    ...crossDialectDependencyStatements(db),
    findWorkItem(id) {
      return db.selectFrom('work_items').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async deleteWorkItem(id, version, event) {
      let query = db.deleteFrom('work_items').where('id', '=', id);
      if (version !== null) query = query.where('version', '=', version);
      const result = await query.executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await crossDialect.appendEvent(event.type, event.data, event.at);
      return true;
    },

    async cameDue(after, upTo) {
      // work_items_due (run_after, claimable only) serves the range; an item that waits on a
      // dependency cannot be claimed when it comes due, and its release is news of its own.
      const rows = await db
        .selectFrom('work_items')
        .select((eb) => ['type', 'project_id', eb.fn.countAll<number | string>().as('count')])
        .where('status', '=', 'queued')
        .where('waiting_on', '=', 0)
        .where('run_after', '>', after)
        .where('run_after', '<=', upTo)
        .groupBy(['type', 'project_id'])
        .execute();
      return rows.map((row) => ({ type: row.type, project_id: row.project_id, count: Number(row.count) }));
    },

    expiredLeases(now, limit) {
      return db
        .selectFrom('work_items')
        .selectAll()
        .where('lease_expires_at', '<=', now)
        .orderBy('lease_expires_at')
        .limit(limit)
        .execute();
    },

    listWorkItems(filter, order, after, limit) {
      let query = applyFilter(db.selectFrom('work_items').selectAll(), filter);
      if (order === 'priority') {
        if (after) {
          query = query.where((eb) =>
            eb(eb.refTuple('priority', 'created_at', 'id'), '>', eb.tuple(after.priority, after.created_at, after.id)),
          );
        }
        query = query.orderBy('priority', 'asc').orderBy('created_at', 'asc').orderBy('id', 'asc');
      } else {
        if (after)
          query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.created_at, after.id)));
        query = query.orderBy('created_at', 'desc').orderBy('id', 'desc');
      }
      return query.limit(limit).execute();
    },

    async countByStatus(filter) {
      const rows = await applyFilter(db.selectFrom('work_items'), filter)
        .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    },

    async listHistory(workItemId) {
      const rows = await db
        .selectFrom('work_history')
        .selectAll()
        .where('work_item_id', '=', workItemId)
        .orderBy('id', 'asc')
        .execute();
      return rows.map((row) => ({ ...row, id: Number(row.id) }));
    },

    listDispatches(workItemId) {
      return db.selectFrom('dispatch_log').selectAll().where('work_item_id', '=', workItemId).execute();
    },

    async insertProject(row) {
      await db.insertInto('projects').values(row).execute();
    },

    findProject(id) {
      return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    },

    listProjects() {
      return db.selectFrom('projects').selectAll().orderBy('name_key').orderBy('name').orderBy('id').execute();
    },

    async updateProject(id, changes) {
      await db.updateTable('projects').set(changes).where('id', '=', id).execute();
    },

    async appendEvent(type, data, at) {
      const { id } = await db
        .insertInto('events')
        .values({ type, data, created_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(id);
    },

    findIdempotencyKey(scope, key) {
      return db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('scope', '=', scope)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
    },

    async saveIdempotencyKey(row) {
      await db
        .insertInto('idempotency_keys')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['scope', 'idempotency_key']).doUpdateSet({
            request_hash: row.request_hash,
            response_status: row.response_status,
            response_body: row.response_body,
            created_at: row.created_at,
          }),
        )
        .execute();
    },

    async purgeIdempotencyKeysBefore(at) {
      const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', at).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
  return crossDialect;
}

type ItemsQuery<O> = SelectQueryBuilder<DatabaseSchema, 'work_items', O>;

/** The filter's WHERE clauses on a read of work_items. */
function applyFilter<O>(query: ItemsQuery<O>, filter: WorkFilter): ItemsQuery<O> {
  let filtered = query;
  if (filter.statuses !== undefined) {
    filtered =
      filter.statuses.length === 1
        ? filtered.where('status', '=', filter.statuses[0]!)
        : filtered.where('status', 'in', filter.statuses);
  }
  if (filter.agent !== undefined) filtered = filtered.where('assigned_agent', '=', filter.agent);
  if (filter.project_id !== undefined) filtered = filtered.where('project_id', '=', filter.project_id);
  if (filter.type !== undefined) filtered = filtered.where('type', '=', filter.type);
  if (filter.created_by !== undefined) filtered = filtered.where('created_by', '=', filter.created_by);
  if (filter.since !== undefined) filtered = filtered.where('created_at', '>', filter.since);
  if (filter.updated_since !== undefined) filtered = filtered.where('updated_at', '>', filter.updated_since);
  if (filter.parent_id !== undefined) filtered = filtered.where('parent_id', '=', filter.parent_id);
  if (filter.ready !== undefined) {
    const { now, ready } = filter.ready;
    // Claimable now: what the claim's read takes (sqlite.ts, postgres.ts), as a filter.
    const claimable = (eb: ExpressionBuilder<DatabaseSchema, 'work_items'>) =>
      eb.and([
        eb('status', '=', 'queued'),
        eb('waiting_on', '=', 0),
        eb.or([eb('run_after', 'is', null), eb('run_after', '<=', now)]),
      ]);
    filtered = filtered.where((eb) => (ready ? claimable(eb) : eb.not(claimable(eb))));
  }
  return filtered;
}
