import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { DependencyStatements } from './dependencies-port.js';

// The statements of dependencies-port.ts that are the same SQL on both databases (Kysely writes
// each in the dialect's own syntax); sqlite.ts and postgres.ts add the lock of the graph.

export function crossDialectDependencyStatements(db: DatabaseHandle): Omit<DependencyStatements, 'lockGraph'> {
  return {
    async findLinks(ids) {
      if (ids.length === 0) return [];
      return db
        .selectFrom('work_items')
        .select(['id', 'status', 'description', 'parent_id'])
        .where('id', 'in', [...ids])
        .execute();
    },

    async touchItems(ids, unless) {
      if (ids.length === 0) return [];
      let query = db
        .updateTable('work_items')
        .set((eb) => ({ link_version: eb('link_version', '+', 1) }))
        .where('id', 'in', [...ids]);
      if (unless.length > 0) query = query.where('status', 'not in', [...unless]);
      return query.returningAll().execute();
    },

    async listEdges(itemIds) {
      if (itemIds.length === 0) return [];
      return db
        .selectFrom('work_dependencies')
        .selectAll()
        .where('item_id', 'in', [...itemIds])
        .execute();
    },

    async listDependents(id, limit) {
      const rows = await db
        .selectFrom('work_dependencies as d')
        .innerJoin('work_items as w', 'w.id', 'd.item_id')
        .select('w.id')
        .where('d.depends_on_id', '=', id)
        .orderBy('w.created_at')
        .orderBy('w.id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    async listChildren(parentIds) {
      if (parentIds.length === 0) return [];
      return db
        .selectFrom('work_items')
        .select(['id', 'parent_id'])
        .where('parent_id', 'in', [...parentIds])
        .execute();
    },

    async countChildrenByStatus(parentId) {
      const rows = await db
        .selectFrom('work_items')
        .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
        .where('parent_id', '=', parentId)
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    },

    listDependencies(itemId) {
      return db
        .selectFrom('work_dependencies as d')
        .innerJoin('work_items as w', 'w.id', 'd.depends_on_id')
        .select(['w.id', 'w.status', 'w.description'])
        .where('d.item_id', '=', itemId)
        .orderBy('w.created_at')
        .orderBy('w.id')
        .execute();
    },

    async plansToSettle(hold, limit) {
      // work_items_open_containers finds the parents; work_items_children, each one's steps.
      const rows = await db
        .selectFrom('work_items as p')
        .select('p.id')
        .where('p.container', '=', 1)
        .where('p.status', '=', 'queued')
        .where('p.waiting_on', '=', hold)
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom('work_items as c')
                .select('c.id')
                .whereRef('c.parent_id', '=', 'p.id')
                .where('c.status', '<>', 'completed'),
            ),
          ),
        )
        .where(({ exists, selectFrom }) =>
          exists(selectFrom('work_items as c').select('c.id').whereRef('c.parent_id', '=', 'p.id')),
        )
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    async insertEdges(edges) {
      if (edges.length > 0)
        await db
          .insertInto('work_dependencies')
          .values([...edges])
          .execute();
    },

    async deleteEdges(itemId, dependsOnIds) {
      if (dependsOnIds.length === 0) return;
      await db
        .deleteFrom('work_dependencies')
        .where('item_id', '=', itemId)
        .where('depends_on_id', 'in', [...dependsOnIds])
        .execute();
    },
  };
}
