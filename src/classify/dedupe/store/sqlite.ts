// The dedupe store on SQLite: every statement a fixed SQL text, which the statement cache (database.ts)
// prepares once, with nothing built per request (building with Kysely took a measurable share of the event
// loop in the duplicates benchmark).

import { CompiledQuery } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { TransactionRunner } from '../../../shared/db/group-commit.js';
import type { ClassifyFingerprintRow, ClassifyThreadRow } from '../../tables.js';
import type { UsageEvent } from '../../usage/records.js';
import { CALL_COLUMNS, USAGE_COUNTERS, callRowOf, countersOf, hourOf } from '../../usage/store/port.js';
import {
  type Claim,
  type ClaimRequest,
  type DedupeStore,
  type MessageRow,
  purgedMessage,
  type SaveRequest,
  storedMessage,
  type StoredMessage,
} from './port.js';

const BUMP_THREAD = `INSERT INTO classify_threads (thread_key, seen_count, created_at, updated_at) VALUES (?, 1, ?, ?)
  ON CONFLICT (thread_key) DO UPDATE SET seen_count = classify_threads.seen_count + 1, updated_at = excluded.updated_at
  RETURNING seen_count`;

const INSERT_MESSAGE = `INSERT INTO classify_messages (record_key, fingerprint, conversation_id, state, result, created_at, updated_at)
  VALUES (?, ?, ?, 'pending', NULL, ?, ?) ON CONFLICT (record_key) DO NOTHING RETURNING record_key`;

// Seen again, so kept longer; a pending row keeps its time, which tells a stuck one apart.
const TOUCH_MESSAGE = `UPDATE classify_messages SET updated_at = ? WHERE record_key = ? AND state != 'pending'`;

const FIND_MESSAGE = `SELECT fingerprint, state, result, updated_at FROM classify_messages WHERE record_key = ?`;

// The column is named fingerprint but holds the scoped key (migration 002 predates scopes).
const INSERT_OWNER = `INSERT INTO classify_fingerprints (fingerprint, record_key, created_at, updated_at) VALUES (?, ?, ?, ?)
  ON CONFLICT (fingerprint) DO NOTHING RETURNING record_key`;

const TOUCH_OWNER = `UPDATE classify_fingerprints SET updated_at = ? WHERE fingerprint = ? RETURNING record_key`;

// Whoever moved it first wins; the loser's record keeps its answer all the same.
const MOVE_OWNER = `UPDATE classify_fingerprints SET record_key = ?, updated_at = ? WHERE fingerprint = ? AND record_key = ?`;

const REPLACE_FINGERPRINT = `UPDATE classify_messages SET fingerprint = ?, state = 'pending', result = NULL, updated_at = ?
  WHERE record_key = ? AND fingerprint = ?`;

const RECLAIM = `UPDATE classify_messages SET state = 'pending', updated_at = ?
  WHERE record_key = ? AND fingerprint = ? AND (state = 'failed' OR (state = 'pending' AND updated_at < ?))`;

// A request with newer content may have replaced the record while this one was classifying;
// and a failure never replaces an answer.
const SAVE_ANSWER = `UPDATE classify_messages SET state = 'done', result = ?, updated_at = ? WHERE record_key = ? AND fingerprint = ?`;
const SAVE_FAILURE = `UPDATE classify_messages SET state = 'failed', result = NULL, updated_at = ?
  WHERE record_key = ? AND fingerprint = ? AND state = 'pending'`;

const INSERT_CALL = `INSERT INTO llm_calls (${CALL_COLUMNS.join(', ')}) VALUES (${CALL_COLUMNS.map(() => '?').join(', ')})`;

// One process writes SQLite, so one row per (hour, model): shard 0 (PostgreSQL spreads them).
const ADD_TO_HOUR = `INSERT INTO llm_usage_hourly (hour, provider, model, shard, ${USAGE_COUNTERS.join(', ')})
  VALUES (?, ?, ?, 0, ${USAGE_COUNTERS.map(() => '?').join(', ')})
  ON CONFLICT (hour, provider, model, shard) DO UPDATE SET ${USAGE_COUNTERS.map((name) => `${name} = llm_usage_hourly.${name} + excluded.${name}`).join(', ')}`;

/** Forgets the dedupe rows not touched since the parameter; counted in purgeBefore's answer. */
const PURGE_DEDUPE = ['classify_messages', 'classify_fingerprints', 'classify_threads'].map(
  (table) => `DELETE FROM ${table} WHERE updated_at < ?`,
);
/** The per-call usage rows; the hourly totals stay (cost history). */
const PURGE_CALLS = `DELETE FROM llm_calls WHERE at < ?`;

type Run = <R>(text: string, parameters: readonly unknown[]) => Promise<{ rows: R[]; changes: number }>;

/** Statements on a connection, or on the transaction a runner opened. */
function runOn(db: DatabaseHandle): Run {
  return async <R>(text: string, parameters: readonly unknown[]) => {
    const result = await db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]) as CompiledQuery<R>);
    return { rows: result.rows, changes: Number(result.numAffectedRows ?? 0) };
  };
}

/**
 * The dedupe store over `db` (the database's Kysely). Units of several statements (the claim, an answer with
 * its usage, usage alone) run in transactions of `inTransaction`, the database's runner: group commit, so
 * units that arrive together share one commit (one fsync), and BEGIN IMMEDIATE holds the write lock, so a
 * claim's steps cannot race. The rest are single statements and run as they come.
 */
export function createSqliteDedupeStore(db: DatabaseHandle, inTransaction: TransactionRunner): DedupeStore {
  const direct = statementsOn(runOn(db));
  const unit = <T>(work: (inside: Statements) => Promise<T>): Promise<T> =>
    inTransaction((trx) => work(statementsOn(runOn(trx))));
  return {
    ...direct,
    transaction: (work) => inTransaction((trx) => work(storeInside(trx))),
    claim: (request) => unit((inside) => inside.claim(request)),
    saveResult: (recordKey, fingerprint, classification, now, usage) =>
      unit((inside) => inside.saveResult(recordKey, fingerprint, classification, now, usage)),
    recordUsage: (usage) => unit((inside) => inside.recordUsage(usage)),
  };
}

/** The store inside an open transaction: every statement on it, nested transactions join it. */
function storeInside(trx: DatabaseHandle): DedupeStore {
  const store: DedupeStore = { ...statementsOn(runOn(trx)), transaction: (work) => work(store) };
  return store;
}

type Statements = Omit<DedupeStore, 'transaction'>;

/** Every method as statements on `run`, in order; atomic only inside a transaction. */
function statementsOn(run: Run): Statements {
  const findMessage = async (recordKey: string): Promise<StoredMessage | undefined> => {
    const { rows } = await run<MessageRow>(FIND_MESSAGE, [recordKey]);
    return rows[0] && storedMessage(recordKey, rows[0]);
  };

  const claimFingerprint = async (
    fingerprintKey: string,
    recordKey: string,
    now: string,
  ): Promise<string | undefined> => {
    const owned = await run(INSERT_OWNER, [fingerprintKey, recordKey, now, now]);
    if (owned.rows.length > 0) return undefined;
    const { rows } = await run<Pick<ClassifyFingerprintRow, 'record_key'>>(TOUCH_OWNER, [now, fingerprintKey]);
    return rows[0]?.record_key;
  };

  const recordUsage = async (usage: UsageEvent): Promise<void> => {
    const call = callRowOf(usage);
    if (call)
      await run(
        INSERT_CALL,
        CALL_COLUMNS.map((column) => call[column]),
      );
    const counters = countersOf(usage);
    const { provider, model } = usage.kind === 'call' ? usage.call : usage;
    await run(ADD_TO_HOUR, [hourOf(usage.at), provider, model, ...USAGE_COUNTERS.map((name) => counters[name])]);
  };

  const save = async ({ record_key, fingerprint, classification, now, usage }: SaveRequest): Promise<boolean> => {
    const { changes } = classification
      ? await run(SAVE_ANSWER, [JSON.stringify(classification), now, record_key, fingerprint])
      : await run(SAVE_FAILURE, [now, record_key, fingerprint]);
    if (usage) await recordUsage(usage);
    return changes === 1;
  };

  const claim = async (request: ClaimRequest): Promise<Claim> => {
    const { thread_key, record_key, now } = request;
    const thread = await run<Pick<ClassifyThreadRow, 'seen_count'>>(BUMP_THREAD, [thread_key, now, now]);
    const seen_count = Number(thread.rows[0]!.seen_count);
    const inserted = await run(INSERT_MESSAGE, [record_key, request.fingerprint, request.conversation_id, now, now]);
    if (inserted.rows.length === 0) {
      await run(TOUCH_MESSAGE, [now, record_key]);
      // The row exists: the conflict proves it, so a missing row here means it was purged in between.
      const existing = (await findMessage(record_key)) ?? purgedMessage(record_key, now);
      // Found done with this very content: answered from the store, a duplicate served.
      const served = existing.fingerprint === request.fingerprint && existing.classification !== null;
      if (served) await recordUsage(request.served);
      return { seen_count, existing, owner: undefined, served };
    }
    const ownerKey = await claimFingerprint(request.fingerprint_key, record_key, now);
    const owner = ownerKey === undefined ? undefined : { record_key: ownerKey, message: await findMessage(ownerKey) };
    return { seen_count, existing: undefined, owner, served: false };
  };

  return {
    claim,
    findMessage,
    claimFingerprint,
    recordUsage,
    saveResult: (record_key, fingerprint, classification, now, usage) =>
      save({ record_key, fingerprint, classification, now, usage }),
    async replaceFingerprint(recordKey, previous, next, now) {
      return (await run(REPLACE_FINGERPRINT, [next, now, recordKey, previous])).changes === 1;
    },
    async moveFingerprint(fingerprintKey, from, to, now) {
      await run(MOVE_OWNER, [to, now, fingerprintKey, from]);
    },
    async reclaim(recordKey, fingerprint, staleBefore, now) {
      return (await run(RECLAIM, [now, recordKey, fingerprint, staleBefore])).changes === 1;
    },
    async purgeBefore(before) {
      let removed = 0;
      for (const text of PURGE_DEDUPE) removed += (await run(text, [before])).changes;
      await run(PURGE_CALLS, [before]);
      return removed;
    },
  };
}
