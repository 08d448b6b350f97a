// Mail intake's statements, the same SQL on SQLite and PostgreSQL (Kysely writes each in the
// dialect's own syntax); sqlite.ts and postgres.ts are each this store.

import type { IntakeExecutor, IntakeStore, LoggedMessage } from './port.js';
import type { MailboxRow } from '../tables.js';

const LOGGED_COLUMNS = [
  'id',
  'source_ref',
  'source_hash',
  'message_key',
  'conversation_key',
  'fingerprint',
  'status',
  'action',
  'work_item_id',
  'created_at',
] as const satisfies readonly (keyof LoggedMessage)[];

/** Distinct values, in slices that keep a statement's parameters well under the drivers' limits. */
const LOOKUP_SLICE = 500;

export function crossDialectIntakeStore(db: IntakeExecutor): IntakeStore {
  // Every write a watcher makes is fenced by its lease (`lease_owner = me`): an instance that
  // lost a mailbox to another cannot move its cursor or record a message any more, so its
  // transaction rolls back instead.
  const fenced = (id: string, owner: string) =>
    db.updateTable('intake_mailboxes').where('id', '=', id).where('lease_owner', '=', owner);

  return {
    async insertMailbox(row) {
      await db.insertInto('intake_mailboxes').values(row).execute();
    },

    findMailbox(id) {
      return db.selectFrom('intake_mailboxes').selectAll().where('id', '=', id).executeTakeFirst();
    },

    listMailboxes() {
      return db.selectFrom('intake_mailboxes').selectAll().orderBy('created_at').orderBy('id').execute();
    },

    async updateMailbox(id, changes, at) {
      const result = await db
        .updateTable('intake_mailboxes')
        .set({ ...changes, updated_at: at })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async deleteMailbox(id) {
      const result = await db.deleteFrom('intake_mailboxes').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },

    async claimLeases(owner, now, until) {
      const rows = await db
        .updateTable('intake_mailboxes')
        .set({ lease_owner: owner, lease_expires_at: until })
        .where((eb) =>
          eb.and([
            eb.or([
              eb('enabled', '=', 1),
              eb.exists(
                eb
                  .selectFrom('intake_uploads')
                  .select('intake_uploads.id')
                  .whereRef('intake_uploads.mailbox_id', '=', 'intake_mailboxes.id'),
              ),
            ]),
            eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', owner), eb('lease_expires_at', '<', now)]),
          ]),
        )
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },

    async releaseLease(id, owner) {
      await fenced(id, owner).set({ lease_owner: null, lease_expires_at: null }).execute();
    },

    async setState(id, owner, change) {
      const set: Partial<MailboxRow> = { state: change.state, state_changed_at: change.at };
      if (change.error !== undefined) Object.assign(set, { last_error: change.error, last_error_at: change.at });
      if (change.synced) set.last_sync_at = change.at;
      const result = await fenced(id, owner).set(set).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async resetCursor(id, owner, uidValidity, lastUid, at) {
      const result = await fenced(id, owner)
        .set({ uid_validity: uidValidity, last_uid: lastUid, updated_at: at })
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async addBackfill(id, count, at) {
      // A new backfill starts from zero once the previous one is complete.
      await db
        .updateTable('intake_mailboxes')
        .set((eb) => ({
          backfill_done: eb
            .case()
            .when('backfill_done', '>=', eb.ref('backfill_total'))
            .then(0)
            .else(eb.ref('backfill_done'))
            .end(),
          backfill_total: eb
            .case()
            .when('backfill_done', '>=', eb.ref('backfill_total'))
            .then(count)
            .else(eb('backfill_total', '+', count))
            .end(),
          updated_at: at,
        }))
        .where('id', '=', id)
        .execute();
    },

    async findLogged(mailboxId, query) {
      // One SELECT per column, each an IN on that column's index, joined by UNION ALL: one
      // round trip. No ORDER BY and no other indexed column in a part: either makes SQLite's
      // planner (which has no statistics) walk the whole mailbox in created_at order instead.
      const parts: Array<[keyof LoggedMessage, readonly string[] | undefined]> = [
        ['source_ref', query.source_refs],
        ['source_hash', query.source_hashes],
        ['message_key', query.message_keys],
        ['fingerprint', query.fingerprints],
        ['conversation_key', query.item_conversations],
      ];
      const selects = [];
      for (const [column, values] of parts) {
        const distinct = [...new Set(values ?? [])];
        for (let start = 0; start < distinct.length; start += LOOKUP_SLICE) {
          let select = db
            .selectFrom('intake_messages')
            .select(LOGGED_COLUMNS)
            .where('mailbox_id', '=', mailboxId)
            .where(column, 'in', distinct.slice(start, start + LOOKUP_SLICE));
          // A long thread may have many entries; only the ones with an item matter here.
          if (column === 'conversation_key') select = select.where('work_item_id', 'is not', null);
          selects.push(select);
        }
      }
      if (selects.length === 0) return [];
      const rows = await selects
        .slice(1)
        .reduce((union, next) => union.unionAll(next), selects[0]!)
        .execute();
      // A row matching on two columns comes back twice.
      return [...new Map(rows.map((row) => [row.id, row])).values()];
    },

    async knownMessageKeys(mailboxId, keys) {
      if (keys.length === 0) return new Set();
      const rows = await db
        .selectFrom('intake_messages')
        .select('message_key')
        .where('mailbox_id', '=', mailboxId)
        .where('message_key', 'in', keys)
        .execute();
      return new Set(rows.map((row) => row.message_key));
    },

    async insertMessages(rows) {
      // In slices, like the lookups: a row has 24 columns, so a slice is under 1,000 parameters.
      for (let start = 0; start < rows.length; start += 40) {
        await db
          .insertInto('intake_messages')
          .values(rows.slice(start, start + 40))
          .execute();
      }
    },

    async saveDeltaLink(id, owner, link) {
      const result = await fenced(id, owner).set({ delta_link: link }).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async moveCursor(id, owner, lastUid) {
      const result = await fenced(id, owner)
        .set((eb) => ({
          last_uid: eb.case().when('last_uid', '>', lastUid).then(eb.ref('last_uid')).else(lastUid).end(),
        }))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async advance(id, owner, advance) {
      let query = db
        .updateTable('intake_mailboxes')
        .set((eb) => ({
          seen_count: eb('seen_count', '+', advance.seen),
          classified_count: eb('classified_count', '+', advance.classified),
          created_count: eb('created_count', '+', advance.created),
          noted_count: eb('noted_count', '+', advance.noted),
          failed_count: eb('failed_count', '+', advance.failed),
          backfill_done: eb('backfill_done', '+', advance.backfill),
          ...(advance.last_uid !== undefined && {
            last_uid: eb
              .case()
              .when('last_uid', '>', advance.last_uid)
              .then(eb.ref('last_uid'))
              .else(advance.last_uid)
              .end(),
          }),
          ...(advance.delta_link !== undefined && { delta_link: advance.delta_link }),
        }))
        .where('id', '=', id);
      if (owner !== null) query = query.where('lease_owner', '=', owner);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    listMessages(mailboxId, filter, after, limit) {
      let query = db.selectFrom('intake_messages').selectAll().where('mailbox_id', '=', mailboxId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (filter.action !== undefined) query = query.where('action', '=', filter.action);
      if (after)
        query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.created_at, after.id)));
      return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    },

    async queueUploads(mailboxId, uploads, at) {
      // In slices: one statement per slice keeps every parameter list well under the drivers' limits.
      for (let start = 0; start < uploads.length; start += 200) {
        const slice = uploads.slice(start, start + 200);
        await db
          .insertInto('intake_uploads')
          .values(
            slice.map((upload) => ({
              mailbox_id: mailboxId,
              source_ref: upload.source_ref,
              raw: upload.raw,
              created_at: at,
            })),
          )
          .execute();
      }
    },

    async nextUploads(mailboxId, limit) {
      const rows = await db
        .selectFrom('intake_uploads')
        .select(['id', 'source_ref', 'raw'])
        .where('mailbox_id', '=', mailboxId)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: Number(row.id), source_ref: row.source_ref, raw: Buffer.from(row.raw) }));
    },

    async deleteUploads(ids) {
      for (let start = 0; start < ids.length; start += LOOKUP_SLICE) {
        await db
          .deleteFrom('intake_uploads')
          .where('id', 'in', ids.slice(start, start + LOOKUP_SLICE))
          .execute();
      }
    },
  };
}
