// The SQL of mail intake, the same on SQLite and PostgreSQL. Every write a watcher makes is
// fenced by its lease (`lease_owner = me`): an instance that lost a mailbox to another cannot
// move its cursor or record a message any more, so its transaction rolls back instead.

import type { Database } from '../shared/db/database.js';
import type { DatabaseHandle } from '../shared/db/schema.js';
import type { IntakeMessageRow, MailboxRow, MailboxState, MessageAction } from './tables.js';

type Executor = DatabaseHandle;

/** Where the previous page of the intake log ended (newest first). */
export interface MessagePosition {
  created_at: string;
  id: string;
}

export interface MessageFilter {
  status?: 'done' | 'failed';
  action?: MessageAction;
}

export type MailboxSettings = Omit<
  MailboxRow,
  | 'id'
  | 'state'
  | 'state_changed_at'
  | 'last_error'
  | 'last_error_at'
  | 'last_sync_at'
  | 'uid_validity'
  | 'last_uid'
  | 'delta_link'
  | 'seen_count'
  | 'classified_count'
  | 'created_count'
  | 'noted_count'
  | 'failed_count'
  | 'backfill_done'
  | 'backfill_total'
  | 'lease_owner'
  | 'lease_expires_at'
  | 'created_at'
>;

export interface StateChange {
  state: MailboxState;
  at: string;
  /** Set with `error`; kept (not cleared) by the other states, so the last failure stays visible. */
  error?: string;
  synced?: boolean;
}

/** What a batch of outcomes moves on the mailbox, written with the outcomes. */
export interface Advance {
  /** The highest IMAP UID now processed (the cursor only ever moves forward). */
  last_uid?: number;
  delta_link?: string;
  /** Messages newly logged, and of them: classified, items created, notes added, failed, part of a backfill. */
  seen: number;
  classified: number;
  created: number;
  noted: number;
  failed: number;
  backfill: number;
  at: string;
}

/** A log entry as the pipeline's decisions read it. */
export type LoggedMessage = Pick<
  IntakeMessageRow,
  | 'id'
  | 'source_ref'
  | 'source_hash'
  | 'message_key'
  | 'conversation_key'
  | 'fingerprint'
  | 'status'
  | 'action'
  | 'work_item_id'
  | 'created_at'
>;

/** Values to look up in the log, each on its own column; a row matching any of them is found. */
export interface LogQuery {
  source_refs?: readonly string[];
  source_hashes?: readonly string[];
  message_keys?: readonly string[];
  fingerprints?: readonly string[];
  /** Only the entries that have a work item. */
  item_conversations?: readonly string[];
}

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

export interface UploadToQueue {
  source_ref: string;
  raw: Buffer;
}

export interface QueuedUpload {
  id: number;
  source_ref: string;
  raw: Buffer;
}

export interface IntakeStore {
  insertMailbox(row: MailboxRow): Promise<void>;
  findMailbox(id: string): Promise<MailboxRow | undefined>;
  listMailboxes(): Promise<MailboxRow[]>;
  /** False when the mailbox does not exist. */
  updateMailbox(id: string, changes: Partial<MailboxSettings>, at: string): Promise<boolean>;
  deleteMailbox(id: string): Promise<boolean>;

  /**
   * Takes or renews, in one statement, the lease of every mailbox that has something to watch
   * (enabled, or uploads waiting) and is free, expired or already ours; answers the ids now ours.
   */
  claimLeases(owner: string, now: string, until: string): Promise<string[]>;
  releaseLease(id: string, owner: string): Promise<void>;
  /** False when the lease is no longer ours. */
  setState(id: string, owner: string, change: StateChange): Promise<boolean>;
  /** Sets the cursor outright (first connection, UIDVALIDITY change); false when the lease is lost. */
  resetCursor(
    id: string,
    owner: string,
    uidValidity: number | null,
    lastUid: number | null,
    at: string,
  ): Promise<boolean>;
  /** Adds to the backfill total, starting a new one when the last was complete. */
  addBackfill(id: string, count: number, at: string): Promise<void>;

  /**
   * The logged messages of the mailbox that match any of the values given, in one round trip:
   * what the pipeline decides a batch of messages on (log-view.ts picks among them).
   */
  findLogged(mailboxId: string, query: LogQuery): Promise<LoggedMessage[]>;
  /** Message keys among `keys` already logged for this mailbox (to skip known mail on a resync). */
  knownMessageKeys(mailboxId: string, keys: string[]): Promise<Set<string>>;
  /** Log entries, in order (one statement per slice of them). */
  insertMessages(rows: IntakeMessageRow[]): Promise<void>;
  /** Graph: where the next delta round starts (or the current one goes on); false when the lease is lost. */
  saveDeltaLink(id: string, owner: string, link: string | null): Promise<boolean>;
  /** Moves the cursor forward without counting anything; false when the lease is lost. */
  moveCursor(id: string, owner: string, lastUid: number): Promise<boolean>;
  /** Moves the cursor and the counters with an outcome; false when the lease is lost. `owner` null: no fence (uploads). */
  advance(id: string, owner: string | null, advance: Advance): Promise<boolean>;
  listMessages(
    mailboxId: string,
    filter: MessageFilter,
    after: MessagePosition | null,
    limit: number,
  ): Promise<IntakeMessageRow[]>;

  queueUploads(mailboxId: string, uploads: UploadToQueue[], at: string): Promise<void>;
  nextUploads(mailboxId: string, limit: number): Promise<QueuedUpload[]>;
  deleteUploads(ids: number[]): Promise<void>;
}

export function createIntakeStore(database: Database): IntakeStore {
  return intakeStoreOn(database.kysely);
}

/** The store on an executor: the database, or a transaction another store opened. */
export function intakeStoreOn(db: Executor): IntakeStore {
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
