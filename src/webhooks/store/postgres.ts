import { sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WebhookEndpointRow } from '../tables.js';
import { crossDialectWebhooks, endpointOf } from './cross-dialect.js';
import type { WebhookStatements } from './port.js';

// Webhooks on PostgreSQL: instances share the tables, so the claim locks the endpoints it takes
// and skips those another sender is taking (FOR UPDATE SKIP LOCKED), then leases them.

export function postgresWebhooks(db: DatabaseHandle): WebhookStatements {
  return {
    ...crossDialectWebhooks(db),

    async claimEndpoints(now, leaseUntil, limit) {
      const { rows } =
        await sql<WebhookEndpointRow>`UPDATE webhook_endpoints SET claimed_until = ${leaseUntil}::timestamptz
        WHERE id IN (
          SELECT e.id FROM webhook_endpoints e
          WHERE e.enabled = 1 AND (e.claimed_until IS NULL OR e.claimed_until <= ${now}::timestamptz)
            AND (SELECT d.next_attempt_at FROM webhook_deliveries d
                 WHERE d.endpoint_id = e.id AND d.status = 'pending' ORDER BY d.seq LIMIT 1) <= ${now}::timestamptz
          LIMIT ${limit}
          FOR UPDATE OF e SKIP LOCKED
        )
        RETURNING *`.execute(db);
      return rows.map(endpointOf);
    },

    async holdsLease(endpointId, leasedUntil) {
      // Locks the endpoint for the caller's transaction: the lease cannot pass to another sender
      // between this check and the writes after it.
      const { rows } = await sql<{ id: string }>`SELECT id FROM webhook_endpoints
        WHERE id = ${endpointId} AND claimed_until = ${leasedUntil}::timestamptz FOR UPDATE`.execute(db);
      return rows.length === 1;
    },
  };
}
