import { sql } from 'kysely';
import type { Database } from '../../shared/db/database.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { ItemRows, RetentionStore } from './port.js';
import './tables.js';

// Retention's statements, the same SQL on both databases (Kysely writes each in the dialect's
// syntax). The final statuses are written as the partial index's own predicate, so both planners
// read work_items_final_changed and never the whole table.

const FINAL = sql<boolean>`status IN ('completed', 'failed', 'cancelled')`;
const FINAL_W = sql<boolean>`w.status IN ('completed', 'failed', 'cancelled')`;

/** An item nothing on the desk still holds: no dependent, no child, no open question, no open parent. */
const NOTHING_HOLDS = sql<boolean>`
  NOT EXISTS (SELECT 1 FROM work_dependencies d WHERE d.depends_on_id = w.id)
  AND NOT EXISTS (SELECT 1 FROM work_items c WHERE c.parent_id = w.id)
  AND NOT EXISTS (SELECT 1 FROM work_questions q WHERE q.work_item_id = w.id AND q.status = 'open')
  AND (w.parent_id IS NULL OR EXISTS (
    SELECT 1 FROM work_items p WHERE p.id = w.parent_id AND p.status IN ('completed', 'failed', 'cancelled')))`;

export function crossDialectRetentionStore(database: Pick<Database, 'kysely' | 'transaction'>): RetentionStore {
  const db: DatabaseHandle = database.kysely;

  async function readItems(handle: DatabaseHandle, ids: readonly string[]): Promise<ItemRows[]> {
    if (ids.length === 0) return [];
    const list = [...ids];
    const [items, dispatches, history, comments, questions, dependencies] = await Promise.all([
      handle.selectFrom('work_items').selectAll().where('id', 'in', list).execute(),
      handle.selectFrom('dispatch_log').selectAll().where('work_item_id', 'in', list).execute(),
      handle.selectFrom('work_history').selectAll().where('work_item_id', 'in', list).orderBy('id').execute(),
      handle
        .selectFrom('work_comments')
        .selectAll()
        .where('work_item_id', 'in', list)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
      handle
        .selectFrom('work_questions')
        .selectAll()
        .where('work_item_id', 'in', list)
        .orderBy('asked_at')
        .orderBy('id')
        .execute(),
      handle.selectFrom('work_dependencies').selectAll().where('item_id', 'in', list).execute(),
    ]);
    const byItem = new Map(items.map((item) => [item.id, item]));
    return list.flatMap((id) => {
      const item = byItem.get(id);
      if (!item) return [];
      return [
        {
          item,
          dispatches: dispatches.filter((row) => row.work_item_id === id),
          history: history.filter((row) => row.work_item_id === id).map((row) => ({ ...row, id: Number(row.id) })),
          comments: comments.filter((row) => row.work_item_id === id),
          questions: questions.filter((row) => row.work_item_id === id),
          dependsOn: dependencies.filter((row) => row.item_id === id).map((row) => row.depends_on_id),
        },
      ];
    });
  }

  return {
    takeLease(holder, now, until) {
      return database.transaction(async (trx) => {
        const row = await trx.selectFrom('archive_ledger').selectAll().where('slot', '=', 1).executeTakeFirst();
        if (!row) {
          const inserted = await trx
            .insertInto('archive_ledger')
            .values({ slot: 1, holder, lease_until: until, file: null, file_offset: null })
            .onConflict((conflict) => conflict.column('slot').doNothing())
            .executeTakeFirst();
          return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1
            ? { taken: true, unfinished: null }
            : { taken: false };
        }
        if (row.holder !== holder && Date.parse(row.lease_until) > Date.parse(now)) return { taken: false };
        // Guarded on the row as read, so of two instances taking an expired lease only one wins.
        const updated = await trx
          .updateTable('archive_ledger')
          .set({ holder, lease_until: until })
          .where('slot', '=', 1)
          .where('holder', '=', row.holder)
          .where('lease_until', '=', row.lease_until)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) !== 1) return { taken: false };
        const unfinished =
          row.file === null || row.file_offset === null ? null : { file: row.file, offset: Number(row.file_offset) };
        return { taken: true, unfinished };
      });
    },

    async startBatch(holder, start, until) {
      const updated = await db
        .updateTable('archive_ledger')
        .set({ lease_until: until, file: start?.file ?? null, file_offset: start?.offset ?? null })
        .where('slot', '=', 1)
        .where('holder', '=', holder)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async releaseLease(holder) {
      await db.deleteFrom('archive_ledger').where('slot', '=', 1).where('holder', '=', holder).execute();
    },

    async removable(before, limit) {
      const rows = await db
        .selectFrom('work_items as w')
        .select('w.id')
        .where(FINAL_W)
        .where('w.updated_at', '<', before)
        .where(NOTHING_HOLDS)
        .orderBy('w.updated_at')
        .orderBy('w.id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    readItems: (ids) => readItems(db, ids),

    removeItems(holder, items) {
      return database.transaction(async (trx) => {
        const ended = await trx
          .updateTable('archive_ledger')
          .set({ file: null, file_offset: null })
          .where('slot', '=', 1)
          .where('holder', '=', holder)
          .executeTakeFirst();
        if (Number(ended.numUpdatedRows) !== 1) return null;
        if (items.length === 0) return 0;
        // Held again since it was read (a new dependent, a retry): it stays, checked in the statement.
        const removed = await trx
          .deleteFrom('work_items as w')
          .where((eb) =>
            eb.or(items.map((item) => eb.and([eb('w.id', '=', item.id), eb('w.version', '=', item.version)]))),
          )
          .where(NOTHING_HOLDS)
          .executeTakeFirst();
        return Number(removed.numDeletedRows);
      });
    },

    async oldestFinal() {
      const row = await db
        .selectFrom('work_items')
        .select('updated_at')
        .where(FINAL)
        .orderBy('updated_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row?.updated_at ?? null;
    },

    restoreItem({ item, dispatches, history, comments, questions }) {
      return database.transaction(async (trx) => {
        const inserted = await trx
          .insertInto('work_items')
          .values({ ...item, parent_id: null })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
        if (dispatches.length > 0) await trx.insertInto('dispatch_log').values(dispatches).execute();
        if (history.length > 0) {
          // New ids from the log's own sequence, in the archived order.
          await trx
            .insertInto('work_history')
            .values(history.map(({ id: _id, ...row }) => row))
            .execute();
        }
        if (comments.length > 0) await trx.insertInto('work_comments').values(comments).execute();
        if (questions.length > 0) await trx.insertInto('work_questions').values(questions).execute();
        return true;
      });
    },

    relink(id, parentId, dependsOn) {
      return database.transaction(async (trx) => {
        let links = 0;
        if (parentId !== null) {
          const parent = await trx
            .updateTable('work_items')
            .set({ parent_id: parentId })
            .where('id', '=', id)
            .where('parent_id', 'is', null)
            .where((eb) => eb.exists(eb.selectFrom('work_items as p').select('p.id').where('p.id', '=', parentId)))
            .executeTakeFirst();
          links += Number(parent.numUpdatedRows);
        }
        if (dependsOn.length > 0) {
          const existing = await trx
            .selectFrom('work_items')
            .select('id')
            .where('id', 'in', [...dependsOn])
            .execute();
          if (existing.length > 0) {
            const added = await trx
              .insertInto('work_dependencies')
              .values(existing.map((row) => ({ item_id: id, depends_on_id: row.id })))
              .onConflict((conflict) => conflict.columns(['item_id', 'depends_on_id']).doNothing())
              .executeTakeFirst();
            links += Number(added.numInsertedOrUpdatedRows ?? 0);
          }
        }
        return links;
      });
    },
  };
}
