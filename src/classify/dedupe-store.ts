// The SQL of dedupe, the same on SQLite and PostgreSQL. Each claim is a single
// INSERT … ON CONFLICT statement: whoever inserts the row owns it, and a concurrent request
// learns so from the conflict, never from a read that could already be stale. On PostgreSQL
// the two hot paths (the claim and the answer's write) run as batch statements instead
// (dedupe-store-postgres.ts), which keep the same rules.

import { type Kysely, sql } from 'kysely';
import { type Database, DIALECTS } from '../shared/db.js';
import type pg from 'pg';
import type { TransactionRunner } from '../shared/group-commit.js';
import type { Classification } from './categories.js';
import type { UsageEvent } from './usage.js';
import { createCoalescer } from '../shared/coalesce.js';
import { type ClaimParams, type ClaimRow, type SaveParams, claimManyPostgres, saveManyPostgres } from './dedupe-store-postgres.js';
import { addUsageSqlite, bumpThreadSqlite, claimFingerprintSqlite, claimMessageSqlite, findMessageSqlite, saveSqlite } from './dedupe-store-sqlite.js';
import { type UsageTables, callRowOf, countersOf, hourOf, purgeCallsBefore, withUsage, writeUsage } from './usage-store.js';

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

export interface ClaimRequest {
  thread_key: string;
  record_key: string;
  fingerprint: string;
  /** The scope and the fingerprint: the key the owner of this content is found under. */
  fingerprint_key: string;
  conversation_id: string | null;
  now: string;
  /** Recorded with the claim when the record is found done with this very content. */
  served: Extract<UsageEvent, { kind: 'duplicate' }>;
}

export interface Claim {
  /** Requests for the thread, this one included. */
  seen_count: number;
  /** The record as it was found, or undefined when this request inserted it (and owns it). */
  existing: StoredMessage | undefined;
  /**
   * Only for a record this request inserted: undefined when it became the owner of the
   * content, else the owner and, when the claim could read it, the owner's record.
   */
  owner: { record_key: string; message: StoredMessage | undefined } | undefined;
  /** `served` was recorded: `existing` holds this content and its classification. */
  served: boolean;
}

export interface DedupeStore {
  /** Runs `work` in one transaction: one commit (one fsync on SQLite) for a whole decision. */
  transaction<T>(work: (store: DedupeStore) => Promise<T>): Promise<T>;
  /**
   * The first step of every decision in one commit (one round trip on PostgreSQL): counts the
   * thread, claims the record (`claimMessage`), claims the content for a record it inserted
   * (`claimFingerprint`), and records `served` when the record already holds this content, done.
   */
  claim(request: ClaimRequest): Promise<Claim>;
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

export function createDedupeStore(database: Pick<Database, 'kysely' | 'transaction' | 'dialect' | 'pool'>): DedupeStore {
  const batches = database.dialect === DIALECTS.postgres && database.pool ? coalescedPostgres(database.pool) : null;
  return buildStore(database.kysely as Kysely<DedupeTables>, database.transaction, database.dialect === DIALECTS.sqlite, batches);
}

/** The claims, and the answers' writes, that arrive together: one statement for each kind. */
interface PostgresBatches {
  claim(params: ClaimParams): Promise<ClaimRow>;
  save(params: SaveParams): Promise<boolean>;
}

function coalescedPostgres(pool: pg.Pool): PostgresBatches {
  return {
    claim: createCoalescer({
      keyOf: () => 'claim',
      conflictOf: (claim: ClaimParams) => [`t ${claim.thread_key}`, `r ${claim.record_key}`, `f ${claim.fingerprint_key}`],
      run: (claims: ClaimParams[]) => claimManyPostgres(pool, claims),
    }),
    save: createCoalescer({
      keyOf: () => 'save',
      conflictOf: (save: SaveParams) => save.record_key,
      run: (saves: SaveParams[]) => saveManyPostgres(pool, saves),
    }),
  };
}

type Tables = DedupeTables & UsageTables;

/**
 * `runTransaction` is null inside a transaction: nested calls join the one already open.
 * `sharesCommits`: the runner gives concurrent transactions one commit (SQLite), so a lone write
 * is cheaper through it; on PostgreSQL it would only add a BEGIN and a COMMIT round trip.
 * `batches`: PostgreSQL outside a transaction, where claims and answers go in batch statements.
 */
function buildStore(
  db: Kysely<DedupeTables>,
  runTransaction: TransactionRunner | null,
  sharesCommits: boolean,
  batches: PostgresBatches | null = null,
): DedupeStore {

  const toStored = (row: Pick<MessageRow, 'record_key' | 'fingerprint' | 'state' | 'result' | 'updated_at'>): StoredMessage => ({
    record_key: row.record_key,
    fingerprint: row.fingerprint,
    state: row.state,
    classification: row.state === 'done' && row.result !== null ? (JSON.parse(row.result) as Classification) : null,
    updated_at: row.updated_at,
  });

  const findMessage = async (recordKey: string): Promise<StoredMessage | undefined> => {
    if (sharesCommits) return findMessageSqlite(db, recordKey, toStoredRow);
    const row = await db
      .selectFrom('classify_messages')
      .select(['record_key', 'fingerprint', 'state', 'result', 'updated_at'])
      .where('record_key', '=', recordKey)
      .executeTakeFirst();
    return row && toStored(row);
  };

  const toStoredRow = (recordKey: string, row: { fingerprint: string; state: MessageState; result: string | null; updated_at: string }) =>
    toStored({ record_key: recordKey, ...row });

  return {
    async claim(request) {
      if (batches) {
        const { served, ...keys } = request;
        const row = await batches.claim({ ...keys, hour: hourOf(served.at), provider: served.provider, model: served.model });
        const owner =
          row.owner === null
            ? undefined
            : {
                record_key: row.owner,
                message:
                  row.owner_fingerprint === null
                    ? undefined
                    : toStoredRow(row.owner, { fingerprint: row.owner_fingerprint, state: row.owner_state!, result: row.owner_result, updated_at: row.owner_updated_at! }),
              };
        return { seen_count: Number(row.seen_count), existing: row.inserted ? undefined : toStoredRow(request.record_key, row), owner, served: row.served };
      }
      // SQLite (one commit, shared with its neighbours), or inside a transaction: step by step.
      if (runTransaction) return this.transaction((store) => store.claim(request));
      const seen_count = await this.bumpThread(request.thread_key, request.now);
      const existing = await this.claimMessage(request.record_key, request.fingerprint, request.conversation_id, request.now);
      if (existing) {
        const served = existing.fingerprint === request.fingerprint && existing.classification !== null;
        if (served) await (sharesCommits ? addUsageSqlite(db, request.served) : writeUsage(db, request.served, true));
        return { seen_count, existing, owner: undefined, served };
      }
      const ownerKey = await this.claimFingerprint(request.fingerprint_key, request.record_key, request.now);
      const owner = ownerKey === undefined ? undefined : { record_key: ownerKey, message: await findMessage(ownerKey) };
      return { seen_count, existing: undefined, owner, served: false };
    },

    async transaction(work) {
      if (!runTransaction) return work(this);
      return runTransaction((trx) => work(buildStore(trx as Kysely<DedupeTables>, null, sharesCommits)));
    },

    async bumpThread(threadKey, now) {
      if (sharesCommits) return bumpThreadSqlite(db, threadKey, now);
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
      if (sharesCommits) return claimMessageSqlite(db, { record_key: recordKey, fingerprint, conversation_id: conversationId, now }, toStoredRow);
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
      if (sharesCommits) return claimFingerprintSqlite(db, fingerprintKey, recordKey, now);
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
      if (batches) {
        const result = classification ? JSON.stringify(classification) : null;
        const recorded = usage && {
          hour: hourOf(usage.at),
          ...(usage.kind === 'call' ? { provider: usage.call.provider, model: usage.call.model } : { provider: usage.provider, model: usage.model }),
          counters: countersOf(usage),
          call: callRowOf(usage) as Record<string, unknown> | null,
        };
        return batches.save({ record_key: recordKey, fingerprint, result, now, usage: recorded ?? null });
      }
      // SQLite: through the transaction runner, so it shares a commit with its neighbours.
      if (sharesCommits) {
        const record = { record_key: recordKey, fingerprint, classification, now };
        if (runTransaction) return runTransaction((trx) => saveSqlite(trx, record, usage));
        return saveSqlite(db, record, usage);
      }
      // Inside a transaction open on PostgreSQL.
      const tables = db as unknown as Kysely<Tables>;
      let update = tables
        .updateTable('classify_messages')
        .set({ state: classification ? 'done' : 'failed', result: classification ? JSON.stringify(classification) : null, updated_at: now })
        .where('record_key', '=', recordKey)
        // A request with newer content may have replaced it while this one was classifying.
        .where('fingerprint', '=', fingerprint);
      if (!classification) update = update.where('state', '=', 'pending');
      const result = await update.executeTakeFirst();
      if (usage) await writeUsage(tables, usage, !sharesCommits);
      return Number(result.numUpdatedRows) === 1;
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
}
