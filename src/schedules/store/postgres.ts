import { sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { ScheduleStatements } from './port.js';
import type { ScheduleRow } from './tables.js';
import { crossDialectSchedules } from './cross-dialect.js';

// Schedules on PostgreSQL: instances share the table, so the claim locks the due rows it takes
// and skips those another pass is taking (FOR UPDATE SKIP LOCKED), then leases them; the firing
// transaction locks its row so that a PATCH waits for its commit.

export function postgresSchedules(db: DatabaseHandle): ScheduleStatements {
  return {
    ...crossDialectSchedules(db),

    async claimDue(now, leaseUntil, limit) {
      const { rows } = await sql<ScheduleRow>`UPDATE schedules SET claimed_until = ${leaseUntil}::timestamptz
        WHERE id IN (
          SELECT id FROM schedules
          WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ${now}::timestamptz
            AND (claimed_until IS NULL OR claimed_until <= ${now}::timestamptz)
          ORDER BY next_run_at, id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING *`.execute(db);
      return rows.sort((a, b) => (a.next_run_at! < b.next_run_at! ? -1 : 1));
    },

    lockForFiring(id) {
      return db.selectFrom('schedules').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    },
  };
}
