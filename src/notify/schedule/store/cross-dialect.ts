import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { dayKey, type ScheduleStatements } from './port.js';

// The scheduler's statements, the same SQL on both databases: the claim of a day is an insert
// that does nothing on the primary key's conflict (PostgreSQL waits for the other commit first).

export function crossDialectSchedule(db: DatabaseHandle): ScheduleStatements {
  return {
    digestReaders() {
      return db.selectFrom('people').selectAll().where('notify', '=', 'digest').orderBy('name').execute();
    },

    async ranOn(localDates) {
      if (localDates.length === 0) return new Set();
      const rows = await db
        .selectFrom('digest_runs')
        .select(['person', 'local_date'])
        .where('local_date', 'in', [...localDates])
        .execute();
      return new Set(rows.map((row) => dayKey(row.person, row.local_date)));
    },

    async claimDay(row) {
      const inserted = await db
        .insertInto('digest_runs')
        .values(row)
        .onConflict((conflict) => conflict.columns(['person', 'local_date']).doNothing())
        .returning('person')
        .executeTakeFirst();
      return inserted !== undefined;
    },
  };
}
