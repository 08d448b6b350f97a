import { sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { ScheduleStatements } from './port.js';
import type { ScheduleRow } from './tables.js';
import { crossDialectSchedules } from './cross-dialect.js';

// Schedules on SQLite: one writer at a time, so the claim is one guarded UPDATE … RETURNING over
// the due rows (no other pass slips between its read and its write), and the firing
// transaction's read holds the row by itself.

export function sqliteSchedules(db: DatabaseHandle): ScheduleStatements {
  return {
    ...crossDialectSchedules(db),

    async claimDue(now, leaseUntil, limit) {
      const { rows } = await sql<ScheduleRow>`UPDATE schedules SET claimed_until = ${leaseUntil}
        WHERE id IN (
          SELECT id FROM schedules
          WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ${now}
            AND (claimed_until IS NULL OR claimed_until <= ${now})
          ORDER BY next_run_at, id LIMIT ${limit}
        )
        RETURNING *`.execute(db);
      return rows.sort((a, b) => (a.next_run_at! < b.next_run_at! ? -1 : 1));
    },

    lockForFiring(id) {
      return db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
    },
  };
}
