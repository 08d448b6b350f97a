// The SQL of dedupe, the same on SQLite and PostgreSQL. Each claim is a single
// INSERT … ON CONFLICT statement: whoever inserts the row owns it, and a concurrent request
// learns so from the conflict, never from a read that could already be stale.

import { type Kysely, type QueryCreator, sql } from 'kysely';
import { type Database, DIALECTS } from '../shared/db.js';
import type { TransactionRunner } from '../shared/group-commit.js';
import type { Classification } from './categories.js';
import { decideInOneStatement, type OneStepKeys, type OneStepOutcome } from './dedupe-store-postgres.js';
import type { UsageEvent } from './usage.js';
import { type UsageTables, purgeCallsBefore, withUsage, writeUsage } from './usage-store.js';

export const MESSAGE_STATES = ['pending', 'done', 'failed'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

export interface MessageRow {
  record_key: string;
  fingerprint: string;
  conversation_id: string | null;
  state: MessageState;
  result: string | null;
  created_at: string;
  updated_at: string;
}

interface FingerprintRow {
  fingerprint: string;
  record_key: string;
  created_at: string;
  updated_at: string;
}

interface ThreadRow {
  thread_key: string;
  seen_count: number;
  created_at: string;
  updated_at: string;
}

export interface DedupeTables {
  classify_messages: MessageRow;
  classify_fingerprints: FingerprintRow;
  classify_threads: ThreadRow;
}

export interface StoredMessage {
  record_key: string;
  fingerprint: string;
  state: MessageState;
  classification: Classification | null;
  updated_at: string;
}

export interface DedupeStore {
  /** Runs `work` in one transaction: one commit (one fsync on SQLite) for a whole decision. */
  transaction<T>(work: (store: DedupeStore) => Promise<T>): Promise<T>;
  /**
   * PostgreSQL outside a transaction only: the common outcomes of a decision in one statement
   * (dedupe-store-postgres.ts); dedupe.ts goes on from where it stopped.
   */
  decideInOneStep?(keys: OneStepKeys, served: Extract<UsageEvent, { kind: 'duplicate' }>): Promise<OneStepOutcome>;
  /** Counts one more request for the thread and returns the count, this one included. */
  bumpThread(threadKey: string, now: string): Promise<number>;
  /** Inserts a pending record; returns undefined when inserted, else the record already there. */
  claimMessage(recordKey: string, fingerprint: string, conversationId: string | null, now: string): Promise<StoredMessage | undefined>;
  /** Gives a record new content; false when another request changed it first. */
  replaceFingerprint(recordKey: string, previous: string, next: string, now: string): Promise<boolean>;
  /**
   * Makes the record the owner of a content (`fingerprintKey`: the scope and the fingerprint);
   * returns undefined when it became the owner, else the owner.
   */
  claimFingerprint(fingerprintKey: string, recordKey: string, now: string): Promise<string | undefined>;
  /** Hands a content from an owner that no longer holds it (updated since) to a record that does. */
  moveFingerprint(fingerprintKey: string, from: string, to: string, now: string): Promise<void>;
  findMessage(recordKey: string): Promise<StoredMessage | undefined>;
  /**
   * Takes over a record of this content whose classification failed, or stayed pending since
   * before `staleBefore` (its classifier died); false when another request took it first.
   */
  reclaim(recordKey: string, fingerprint: string, staleBefore: string, now: string): Promise<boolean>;
  /**
   * Stores the classification of the content `fingerprint`, or marks the record failed when there
   * is none. Only while the record still holds that content: an answer for content the record no
   * longer has is dropped, and a failure never replaces an answer. True when it was stored.
   * `usage`, when given, is recorded in the same transaction whether or not the answer was
   * stored: the provider was asked either way.
   */
  saveResult(recordKey: string, fingerprint: string, classification: Classification | null, now: string, usage?: UsageEvent): Promise<boolean>;
  /** Records usage that comes with no write of the dedupe record (a duplicate served as it is). */
  recordUsage(usage: UsageEvent): Promise<void>;
  /**
   * Forgets everything not touched since `before`, and the per-call usage rows older than it
   * (the hourly usage totals stay); returns the number of dedupe rows removed.
   */
  purgeBefore(before: string): Promise<number>;
}

export function createDedupeStore(database: Pick<Database, 'kysely' | 'transaction' | 'dialect'>): DedupeStore {
  return buildStore(database.kysely as Kysely<DedupeTables>, database.transaction, database.dialect === DIALECTS.sqlite);
}

type Tables = DedupeTables & UsageTables;

/**
 * `runTransaction` is null inside a transaction: nested calls join the one already open.
 * `sharesCommits`: the runner gives concurrent transactions one commit (SQLite), so a lone write
 * is cheaper through it; on PostgreSQL it would only add a BEGIN and a COMMIT round trip.
 */
function buildStore(db: Kysely<DedupeTables>, runTransaction: TransactionRunner | null, sharesCommits: boolean): DedupeStore {

  const toStored = (row: Pick<MessageRow, 'record_key' | 'fingerprint' | 'state' | 'result' | 'updated_at'>): StoredMessage => ({
    record_key: row.record_key,
    fingerprint: row.fingerprint,
    state: row.state,
    classification: row.state === 'done' && row.result !== null ? (JSON.parse(row.result) as Classification) : null,
    updated_at: row.updated_at,
  });

  const findMessage = async (recordKey: string): Promise<StoredMessage | undefined> => {
    const row = await db
      .selectFrom('classify_messages')
      .select(['record_key', 'fingerprint', 'state', 'result', 'updated_at'])
      .where('record_key', '=', recordKey)
      .executeTakeFirst();
    return row && toStored(row);
  };

  const store: DedupeStore = {
    async transaction(work) {
      if (!runTransaction) return work(this);
      return runTransaction((trx) => work(buildStore(trx as Kysely<DedupeTables>, null, sharesCommits)));
    },

    async bumpThread(threadKey, now) {
      const row = await db
        .insertInto('classify_threads')
        .values({ thread_key: threadKey, seen_count: 1, created_at: now, updated_at: now })
        .onConflict((conflict) =>
          conflict.column('thread_key').doUpdateSet({ seen_count: sql<number>`classify_threads.seen_count + 1`, updated_at: now }),
        )
        .returning('seen_count')
        .executeTakeFirstOrThrow();
      return Number(row.seen_count);
    },

    async claimMessage(recordKey, fingerprint, conversationId, now) {
      const inserted = await db
        .insertInto('classify_messages')
        .values({ record_key: recordKey, fingerprint, conversation_id: conversationId, state: 'pending', result: null, created_at: now, updated_at: now })
        .onConflict((conflict) => conflict.column('record_key').doNothing())
        .returning('record_key')
        .executeTakeFirst();
      if (inserted) return undefined;
      // Seen again, so kept longer; a pending row keeps its time, which tells a stuck one apart.
      await db
        .updateTable('classify_messages')
        .set({ updated_at: now })
        .where('record_key', '=', recordKey)
        .where('state', '!=', 'pending')
        .execute();
      // The row exists: the conflict proves it, so a missing row here means it was purged in between.
      return (await findMessage(recordKey)) ?? { record_key: recordKey, fingerprint: '', state: 'failed', classification: null, updated_at: now };
    },

    async replaceFingerprint(recordKey, previous, next, now) {
      const result = await db
        .updateTable('classify_messages')
        .set({ fingerprint: next, state: 'pending', result: null, updated_at: now })
        .where('record_key', '=', recordKey)
        .where('fingerprint', '=', previous)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async claimFingerprint(fingerprintKey, recordKey, now) {
      // The column is named fingerprint but holds the scoped key (migration 002 predates scopes).
      const inserted = await db
        .insertInto('classify_fingerprints')
        .values({ fingerprint: fingerprintKey, record_key: recordKey, created_at: now, updated_at: now })
        .onConflict((conflict) => conflict.column('fingerprint').doNothing())
        .returning('record_key')
        .executeTakeFirst();
      if (inserted) return undefined;
      const owner = await db
        .updateTable('classify_fingerprints')
        .set({ updated_at: now })
        .where('fingerprint', '=', fingerprintKey)
        .returning('record_key')
        .executeTakeFirst();
      // An owner that is the record itself (a retried request) is no match.
      return owner && owner.record_key !== recordKey ? owner.record_key : undefined;
    },

    async moveFingerprint(fingerprintKey, from, to, now) {
      await db
        .updateTable('classify_fingerprints')
        .set({ record_key: to, updated_at: now })
        .where('fingerprint', '=', fingerprintKey)
        // Whoever moved it first wins; the loser's record keeps its answer all the same.
        .where('record_key', '=', from)
        .execute();
    },

    findMessage,

    async reclaim(recordKey, fingerprint, staleBefore, now) {
      const result = await db
        .updateTable('classify_messages')
        .set({ state: 'pending', updated_at: now })
        .where('record_key', '=', recordKey)
        .where('fingerprint', '=', fingerprint)
        .where((where) =>
          where.or([where('state', '=', 'failed'), where.and([where('state', '=', 'pending'), where('updated_at', '<', staleBefore)])]),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async saveResult(recordKey, fingerprint, classification, now, usage) {
      // Through the transaction runner, so on SQLite it shares a commit with its neighbours.
      if (runTransaction && sharesCommits) {
        return runTransaction((trx) =>
          buildStore(trx as Kysely<DedupeTables>, null, sharesCommits).saveResult(recordKey, fingerprint, classification, now, usage),
        );
      }
      const update = (creator: QueryCreator<Tables>) => {
        let query = creator
          .updateTable('classify_messages')
        .set({
          state: classification ? 'done' : 'failed',
          result: classification ? JSON.stringify(classification) : null,
          updated_at: now,
        })
        .where('record_key', '=', recordKey)
        // A request with newer content may have replaced it while this one was classifying.
        .where('fingerprint', '=', fingerprint);
        if (!classification) query = query.where('state', '=', 'pending');
        return query;
      };
      const tables = db as unknown as Kysely<Tables>;
      if (!usage) return Number((await update(tables).executeTakeFirst()).numUpdatedRows) === 1;
      if (sharesCommits) {
        // SQLite: already inside the (group) transaction; statements cost no round trip.
        const result = await update(tables).executeTakeFirst();
        await writeUsage(tables, usage, false);
        return Number(result.numUpdatedRows) === 1;
      }
      // PostgreSQL: one statement, so the usage costs no round trip and commits with the answer.
      const row = await withUsage(tables.with('saved', (creator) => update(creator).returning('record_key')), usage)
        .selectFrom('saved')
        .select((select) => select.fn.countAll<number>().as('saved'))
        .executeTakeFirstOrThrow();
      return Number(row.saved) === 1;
    },

    async recordUsage(usage) {
      if (runTransaction && sharesCommits) {
        return runTransaction((trx) => buildStore(trx as Kysely<DedupeTables>, null, sharesCommits).recordUsage(usage));
      }
      const tables = db as unknown as Kysely<Tables>;
      if (sharesCommits) return writeUsage(tables, usage, false);
      // PostgreSQL: one autocommit statement, no BEGIN and COMMIT around it.
      await withUsage(tables, usage).selectNoFrom(sql<number>`1`.as('one')).execute();
    },

    async purgeBefore(before) {
      let removed = 0;
      for (const table of ['classify_messages', 'classify_fingerprints', 'classify_threads'] as const) {
        const result = await db.deleteFrom(table).where('updated_at', '<', before).executeTakeFirst();
        removed += Number(result.numDeletedRows);
      }
      await purgeCallsBefore(db, before);
      return removed;
    },
  };
  if (runTransaction && !sharesCommits) {
    store.decideInOneStep = (keys, served) => decideInOneStatement(db as Kysely<unknown>, keys, served);
  }
  return store;
}
