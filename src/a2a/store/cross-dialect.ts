import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { A2aStore } from './port.js';
import './tables.js';

const FINAL_STATUSES = ['completed', 'failed', 'cancelled'] as const;

// The A2A statements, the same SQL on both databases (Kysely writes each in the dialect's syntax).

export function crossDialectA2aStore(db: DatabaseHandle): A2aStore {
  return {
    async link(row) {
      await db
        .insertInto('a2a_contexts')
        .values(row)
        .onConflict((conflict) => conflict.column('item_id').doNothing())
        .execute();
    },

    async contextsOf(itemIds) {
      if (itemIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('a2a_contexts')
        .select(['item_id', 'context_id'])
        .where('item_id', 'in', [...itemIds])
        .execute();
      return new Map(rows.map((row) => [row.item_id, row.context_id]));
    },

    async contextPage({ context_id, created_by, after, limit }) {
      let query = db.selectFrom('a2a_contexts').selectAll().where('context_id', '=', context_id);
      if (created_by !== null) query = query.where('created_by', '=', created_by);
      if (after) {
        query = query.where((eb) =>
          eb.or([
            eb('created_at', '<', after.created_at),
            eb.and([eb('created_at', '=', after.created_at), eb('item_id', '<', after.item_id)]),
          ]),
        );
      }
      return query.orderBy('created_at', 'desc').orderBy('item_id', 'desc').limit(limit).execute();
    },

    async insertPush(row) {
      await db.insertInto('a2a_push_configs').values(row).execute();
    },

    async findPush(taskId, id) {
      return db
        .selectFrom('a2a_push_configs')
        .selectAll()
        .where('task_id', '=', taskId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async listPush(taskId) {
      return db
        .selectFrom('a2a_push_configs')
        .selectAll()
        .where('task_id', '=', taskId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    async pushOfEndpoint(endpointId) {
      return db.selectFrom('a2a_push_configs').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirst();
    },

    async endedPushEndpoints(before, limit) {
      const rows = await db
        .selectFrom('a2a_push_configs as c')
        .innerJoin('work_items as w', 'w.id', 'c.task_id')
        .select('c.endpoint_id')
        .where('w.status', 'in', [...FINAL_STATUSES])
        .where('w.updated_at', '<', before)
        .limit(limit)
        .execute();
      return rows.map((row) => row.endpoint_id);
    },
  };
}
