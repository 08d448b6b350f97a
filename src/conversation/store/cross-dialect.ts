import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { ConversationStatements, InboxRow, WaitingRow } from './port.js';

// The conversation's statements that are the same SQL on both databases (Kysely writes each in the
// dialect's own syntax). sqlite.ts and postgres.ts add the comment writes, which keep the item's
// counter, and so make one complete store each.

export type CrossDialectStatements = Omit<ConversationStatements, 'insertComment' | 'deleteComment'>;

/**
 * No locks: the partial unique index holds "one open question per item", and the answer's guarded
 * UPDATE lets one answer win. Times are ISO text on both (the PostgreSQL pool reads timestamptz as ISO).
 */
export function crossDialectStatements(db: DatabaseHandle): CrossDialectStatements {
  return {
    listComments(workItemId, after, limit, order) {
      const direction = order === 'newest' ? 'desc' : 'asc';
      let query = db.selectFrom('work_comments').selectAll().where('work_item_id', '=', workItemId);
      if (after)
        query = query.where((eb) =>
          eb(eb.refTuple('created_at', 'id'), order === 'newest' ? '<' : '>', eb.tuple(after.at, after.id)),
        );
      return query.orderBy('created_at', direction).orderBy('id', direction).limit(limit).execute();
    },

    async insertQuestion(row) {
      // DO NOTHING rather than the unique violation, which on PostgreSQL would abort the
      // transaction the caller still has to read the open question on.
      const inserted = await db
        .insertInto('work_questions')
        .values(row)
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    findQuestion(workItemId, questionId) {
      return db
        .selectFrom('work_questions')
        .selectAll()
        .where('id', '=', questionId)
        .where('work_item_id', '=', workItemId)
        .executeTakeFirst();
    },

    async findQuestions(ids) {
      if (ids.length === 0) return [];
      return db
        .selectFrom('work_questions')
        .selectAll()
        .where('id', 'in', [...ids])
        .execute();
    },

    findOpenQuestion(workItemId) {
      return db
        .selectFrom('work_questions')
        .selectAll()
        .where('work_item_id', '=', workItemId)
        .where('status', '=', 'open')
        .executeTakeFirst();
    },

    async answerQuestion(id, answer) {
      const updated = await db
        .updateTable('work_questions')
        .set({ ...answer, status: 'answered' })
        .where('id', '=', id)
        .where('status', '=', 'open')
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async closeOpenQuestions(workItemIds) {
      if (workItemIds.length === 0) return [];
      return db
        .updateTable('work_questions')
        .set({ status: 'moot' })
        .where('work_item_id', 'in', [...workItemIds])
        .where('status', '=', 'open')
        .returningAll()
        .execute();
    },

    listItemQuestions(workItemId) {
      return db
        .selectFrom('work_questions')
        .selectAll()
        .where('work_item_id', '=', workItemId)
        .orderBy('asked_at')
        .orderBy('id')
        .execute();
    },

    async inbox(filter, after, limit) {
      const open = filter.status === 'open';
      const key = open ? 'q.asked_at' : 'q.answered_at';
      let query = db
        .selectFrom('work_questions as q')
        .innerJoin('work_items as w', 'w.id', 'q.work_item_id')
        .selectAll('q')
        .select([
          'w.description as item_description',
          'w.priority as item_priority',
          'w.project_id as item_project_id',
          'w.type as item_type',
          'w.status as item_status',
          'w.assigned_agent as item_assigned_agent',
        ])
        .where('q.status', '=', filter.status);
      if (filter.project_id !== undefined) query = query.where('w.project_id', '=', filter.project_id);
      if (filter.agent !== undefined) query = query.where('q.agent', '=', filter.agent);
      if (filter.overdue !== undefined) {
        const { is, at } = filter.overdue;
        query = query.where((eb) => {
          const past = eb.and([eb('q.status', '=', 'open'), eb('q.due_at', 'is not', null), eb('q.due_at', '<=', at)]);
          return is ? past : eb.not(past);
        });
      }
      if (after) {
        query = query.where((eb) => eb(eb.refTuple(key, 'q.id'), open ? '>' : '<', eb.tuple(after.at, after.id)));
      }
      const direction = open ? 'asc' : 'desc';
      return (await query.orderBy(key, direction).orderBy('q.id', direction).limit(limit).execute()) as InboxRow[];
    },

    async listWaiting() {
      const rows = await db
        .selectFrom('work_questions as q')
        .innerJoin('work_items as w', 'w.id', 'q.work_item_id')
        .leftJoin('projects as p', 'p.id', 'w.project_id')
        .selectAll('q')
        .select([
          'w.description as item_description',
          'w.type as item_type',
          'w.created_by as item_created_by',
          'w.watchers as item_watchers',
          'p.name as project_name',
          'p.watchers as project_watchers',
        ])
        .where('q.status', '=', 'open')
        .orderBy('q.asked_at')
        .orderBy('q.id')
        .execute();
      return rows as WaitingRow[];
    },

    listToEscalate(at, limit) {
      return db
        .selectFrom('work_questions')
        .selectAll()
        .where('status', '=', 'open')
        .where('due_at', 'is not', null)
        .where('due_at', '<=', at)
        .where('escalated_at', 'is', null)
        .orderBy('due_at')
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    async markEscalated(id, at) {
      // Guarded: of two instances, the second waits for the first's commit and then matches nothing.
      const updated = await db
        .updateTable('work_questions')
        .set({ escalated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'open')
        .where('escalated_at', 'is', null)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async countOpen() {
      const row = await db
        .selectFrom('work_questions')
        .select((eb) => eb.fn.countAll<number>().as('open'))
        .where('status', '=', 'open')
        .executeTakeFirst();
      return Number(row?.open ?? 0);
    },
  };
}
