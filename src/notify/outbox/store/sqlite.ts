import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { NotificationRow } from '../tables.js';
import type { OutboxStatements } from './port.js';
import { crossDialectOutbox } from './cross-dialect.js';

// The outbox on SQLite: one writer at a time, so the claim is one UPDATE … RETURNING over the
// due rows; no other sender can slip between its read and its write.

export function sqliteOutbox(db: DatabaseHandle): OutboxStatements {
  return {
    ...crossDialectOutbox(db),

    async claimDue(now, leaseUntil, limit) {
      const { rows } = await sql<NotificationRow>`UPDATE notifications SET claimed_until = ${leaseUntil}
        WHERE id IN (
          SELECT id FROM notifications
          WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ${now}
            AND (claimed_until IS NULL OR claimed_until <= ${now})
          ORDER BY next_attempt_at, id LIMIT ${limit}
        )
        RETURNING *`.execute(db);
      return rows.sort((a, b) => (a.next_attempt_at! < b.next_attempt_at! ? -1 : 1));
    },
  };
}
