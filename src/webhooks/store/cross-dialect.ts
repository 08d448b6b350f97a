import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../tables.js';
import type { WebhookStatements } from './port.js';

// The webhook statements that are the same SQL on both databases (Kysely writes each in the
// dialect's syntax). sqlite.ts and postgres.ts add the claim and the cursor's lock.

/** Rows per INSERT: well under either database's limit on bound parameters. */
const INSERT_CHUNK = 200;

export type CrossDialectWebhooks = Omit<WebhookStatements, 'claimEndpoints' | 'holdsLease'>;

/** PostgreSQL returns bigint columns as text. */
export function deliveryOf(row: WebhookDeliveryRow): WebhookDeliveryRow {
  return { ...row, seq: Number(row.seq), event_id: row.event_id === null ? null : Number(row.event_id) };
}

export function endpointOf(row: WebhookEndpointRow): WebhookEndpointRow {
  return { ...row, enabled: Number(row.enabled) };
}

export function crossDialectWebhooks(db: DatabaseHandle): CrossDialectWebhooks {
  return {
    async insertEndpoint(row) {
      await db.insertInto('webhook_endpoints').values(row).execute();
    },

    async updateEndpoint(id, changes) {
      const updated = await db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async deleteEndpoint(id) {
      const deleted = await db.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
      return Number(deleted.numDeletedRows) === 1;
    },

    async findEndpoint(id) {
      const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
      return row && endpointOf(row);
    },

    async listEndpoints() {
      const rows = await db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(endpointOf);
    },

    async hasEndpoints() {
      const row = await db.selectFrom('webhook_endpoints').select('id').limit(1).executeTakeFirst();
      return row !== undefined;
    },

    async pendingSummary(endpointId) {
      let query = db
        .selectFrom('webhook_deliveries')
        .select((eb) => [
          'endpoint_id',
          eb.fn.countAll<number>().as('pending'),
          eb.fn.min('created_at').as('oldest_pending_at'),
        ])
        .where('status', '=', 'pending');
      if (endpointId !== undefined) query = query.where('endpoint_id', '=', endpointId);
      const rows = await query.groupBy('endpoint_id').execute();
      return rows.map((row) => ({ ...row, pending: Number(row.pending) }));
    },

    async fanOutCursor() {
      const row = await db
        .selectFrom('webhook_fan_out')
        .select('event_id')
        .where('id', '=', 1)
        .executeTakeFirstOrThrow();
      return Number(row.event_id);
    },

    async advanceFanOut(from, to) {
      const updated = await db
        .updateTable('webhook_fan_out')
        .set({ event_id: to })
        .where('id', '=', 1)
        .where('event_id', '=', from)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async itemStatuses(workItemIds) {
      if (workItemIds.length === 0) return [];
      return db.selectFrom('webhook_item_status').selectAll().where('work_item_id', 'in', workItemIds).execute();
    },

    async saveItemStatuses(statuses) {
      if (statuses.length === 0) return;
      await db
        .insertInto('webhook_item_status')
        .values([...statuses])
        .onConflict((oc) => oc.column('work_item_id').doUpdateSet({ status: (eb) => eb.ref('excluded.status') }))
        .execute();
    },

    async forgetItems(workItemIds) {
      if (workItemIds.length === 0) return;
      await db.deleteFrom('webhook_item_status').where('work_item_id', 'in', workItemIds).execute();
    },

    async insertDeliveries(rows) {
      // Both databases number a multi-row INSERT's rows in the order given: seq follows the list.
      for (let at = 0; at < rows.length; at += INSERT_CHUNK) {
        await db
          .insertInto('webhook_deliveries')
          .values(rows.slice(at, at + INSERT_CHUNK))
          .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
          .execute();
      }
    },

    async headDeliveries(endpointId, limit) {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'pending')
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map(deliveryOf);
    },

    async releaseLease(endpointId, leasedUntil) {
      await db
        .updateTable('webhook_endpoints')
        .set({ claimed_until: null })
        .where('id', '=', endpointId)
        .where('claimed_until', '=', leasedUntil)
        .execute();
    },

    async updateDelivery(id, changes) {
      await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
    },

    async insertAttempt(row) {
      await db.insertInto('webhook_attempts').values(row).execute();
    },

    async listDeliveries(endpointId, status, beforeSeq, limit) {
      let query = db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId);
      if (status !== undefined) query = query.where('status', '=', status);
      if (beforeSeq !== null) query = query.where('seq', '<', beforeSeq);
      const rows = await query.orderBy('seq', 'desc').limit(limit).execute();
      return rows.map(deliveryOf);
    },

    async attemptsOf(deliveryIds) {
      if (deliveryIds.length === 0) return [];
      const rows = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('delivery_id', 'in', deliveryIds)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ ...row, id: Number(row.id) }));
    },

    async findDelivery(endpointId, id) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && deliveryOf(row);
    },

    async requeueFailedSince(endpointId, since, at) {
      const updated = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: at })
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'failed')
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows);
    },

    async purgeDeliveriesBefore(at) {
      // Attempts go with their delivery (ON DELETE CASCADE); a pending delivery is never purged.
      const deleted = await db
        .deleteFrom('webhook_deliveries')
        .where('created_at', '<', at)
        .where('status', '<>', 'pending')
        .executeTakeFirst();
      return Number(deleted.numDeletedRows);
    },
  };
}
