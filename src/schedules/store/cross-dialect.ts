import { sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { ScheduleStatements } from './port.js';
import './tables.js';

// The schedules' statements that are the same SQL on both databases (Kysely writes each in the
// dialect's syntax). sqlite.ts and postgres.ts add the claim and the lock, which differ.

export type CrossDialectSchedules = Omit<ScheduleStatements, 'claimDue' | 'lockForFiring'>;

export function crossDialectSchedules(db: DatabaseHandle): CrossDialectSchedules {
  return {
    async insert(row) {
      await db.insertInto('schedules').values(row).execute();
    },

    async anyDue(now) {
      const row = await db
        .selectFrom('schedules')
        .select('id')
        .where('enabled', '=', 1)
        .where('next_run_at', 'is not', null)
        .where('next_run_at', '<=', now)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    find(id) {
      return db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
    },

    list(filter) {
      let query = db.selectFrom('schedules').selectAll();
      if (filter.project_id !== undefined) query = query.where('project_id', '=', filter.project_id);
      if (filter.enabled !== undefined) query = query.where('enabled', '=', filter.enabled ? 1 : 0);
      return query.orderBy('name').orderBy('id').execute();
    },

    update(id, set) {
      return db
        .updateTable('schedules')
        .set({ ...set, version: sql<number>`version + 1` })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },

    async remove(id) {
      const removed = await db.deleteFrom('schedules').where('id', '=', id).executeTakeFirst();
      return Number(removed.numDeletedRows) === 1;
    },

    occurrences(id, limit) {
      return db
        .selectFrom('schedule_occurrences')
        .selectAll()
        .where('schedule_id', '=', id)
        .orderBy('occurrence_at', 'desc')
        .limit(limit)
        .execute();
    },

    async insertOccurrence(row) {
      const inserted = await db
        .insertInto('schedule_occurrences')
        .values(row)
        .onConflict((conflict) => conflict.columns(['schedule_id', 'occurrence_at']).doNothing())
        .returning('schedule_id')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    async setOccurrenceItem(id, occurrenceAt, workItemId) {
      await db
        .updateTable('schedule_occurrences')
        .set({ work_item_id: workItemId })
        .where('schedule_id', '=', id)
        .where('occurrence_at', '=', occurrenceAt)
        .execute();
    },

    async setLastRun(id, at) {
      await db.updateTable('schedules').set({ last_run_at: at }).where('id', '=', id).execute();
    },

    async lastItem(id) {
      const row = await db
        .selectFrom('schedule_occurrences')
        .select('work_item_id')
        .where('schedule_id', '=', id)
        .where('work_item_id', 'is not', null)
        .orderBy('occurrence_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.work_item_id ?? null;
    },

    async finishFiring(id, lease, set) {
      const updated = await db
        .updateTable('schedules')
        .set({ ...set, claimed_until: null })
        .where('id', '=', id)
        .where('claimed_until', '=', lease)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async release(id, lease) {
      await db
        .updateTable('schedules')
        .set({ claimed_until: null })
        .where('id', '=', id)
        .where('claimed_until', '=', lease)
        .execute();
    },
  };
}
