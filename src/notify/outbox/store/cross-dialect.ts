import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { OutboxStatements } from './port.js';

// The outbox's statements that are the same SQL on both databases (Kysely writes each in the
// dialect's syntax). sqlite.ts and postgres.ts add the claim, which locks differently.

export type CrossDialectOutbox = Omit<OutboxStatements, 'claimDue'>;

export function crossDialectOutbox(db: DatabaseHandle): CrossDialectOutbox {
  return {
    async insert(row) {
      await db.insertInto('notifications').values(row).execute();
    },

    async recordAttempt(id, leasedUntil, outcome) {
      const set =
        outcome.status === 'sent'
          ? { status: 'sent' as const, sent_at: outcome.at, next_attempt_at: null, last_error: null }
          : { status: 'failed' as const, last_error: outcome.error, next_attempt_at: outcome.next_attempt_at };
      const updated = await db
        .updateTable('notifications')
        .set({ ...set, attempts: sql<number>`attempts + 1`, claimed_until: null })
        .where('id', '=', id)
        .where('claimed_until', '=', leasedUntil)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    async recordSkipped(id, leasedUntil, reason) {
      const updated = await db
        .updateTable('notifications')
        .set({ status: 'skipped', last_error: reason, next_attempt_at: null, claimed_until: null })
        .where('id', '=', id)
        .where('claimed_until', '=', leasedUntil)
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) === 1;
    },

    list(filter, after, limit) {
      let query = db.selectFrom('notifications').selectAll();
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.work_item_id !== undefined) query = query.where('work_item_id', '=', filter.work_item_id);
      if (filter.person !== undefined) query = query.where('person', '=', filter.person);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.at, after.id)));
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    },

    findById(id) {
      return db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findByMessageIds(messageIds) {
      if (messageIds.length === 0) return [];
      return db.selectFrom('notifications').selectAll().where('message_id', 'in', messageIds).execute();
    },

    listForItem(workItemId) {
      return db
        .selectFrom('notifications')
        .selectAll()
        .where('work_item_id', '=', workItemId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
  };
}
