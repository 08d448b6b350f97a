import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { NotificationRow } from '../tables.js';
import type { OutboxStatements } from './port.js';
import { crossDialectOutbox } from './cross-dialect.js';

// The outbox on PostgreSQL: instances share the table, so the claim locks the due rows it takes
// and skips those another sender is taking (FOR UPDATE SKIP LOCKED), then leases them.

export function postgresOutbox(db: DatabaseHandle): OutboxStatements {
  return {
    ...crossDialectOutbox(db),

    async claimDue(now, leaseUntil, limit) {
      const { rows } = await sql<NotificationRow>`UPDATE notifications SET claimed_until = ${leaseUntil}::timestamptz
        WHERE id IN (
          SELECT id FROM notifications
          WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ${now}::timestamptz
            AND (claimed_until IS NULL OR claimed_until <= ${now}::timestamptz)
          ORDER BY next_attempt_at, id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING *`.execute(db);
      return rows.sort((a, b) => (a.next_attempt_at! < b.next_attempt_at! ? -1 : 1));
    },
  };
}
