import { sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WebhookEndpointRow } from '../tables.js';
import { crossDialectWebhooks, endpointOf } from './cross-dialect.js';
import type { WebhookStatements } from './port.js';

// Webhooks on SQLite: one writer at a time, so the claim is one UPDATE … RETURNING over the
// endpoints whose oldest pending delivery is due; no other sender slips between read and write.

export function sqliteWebhooks(db: DatabaseHandle): WebhookStatements {
  return {
    ...crossDialectWebhooks(db),

    async claimEndpoints(now, leaseUntil, limit) {
      const { rows } = await sql<WebhookEndpointRow>`UPDATE webhook_endpoints SET claimed_until = ${leaseUntil}
        WHERE id IN (
          SELECT e.id FROM webhook_endpoints e
          WHERE e.enabled = 1 AND (e.claimed_until IS NULL OR e.claimed_until <= ${now})
            AND (SELECT d.next_attempt_at FROM webhook_deliveries d
                 WHERE d.endpoint_id = e.id AND d.status = 'pending' ORDER BY d.seq LIMIT 1) <= ${now}
          LIMIT ${limit}
        )
        RETURNING *`.execute(db);
      return rows.map(endpointOf);
    },

    async holdsLease(endpointId, leasedUntil) {
      const row = await db
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('id', '=', endpointId)
        .where('claimed_until', '=', leasedUntil)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
