import { CompiledQuery, type QueryResult } from 'kysely';
import type { Claim, MessageState } from './dedupe-store.js';
import type { Classification } from './categories.js';
import type { UsageEvent } from './usage.js';
import { CALL_COLUMNS, callRowOf, countersOf, hourOf, USAGE_COUNTERS } from './usage-store.js';

// The dedupe's statements on SQLite, on the hot path of every request (the claim's steps and the
// answer's write), as fixed SQL texts: no building and compiling of each one per request (an
// eighth of the event loop's time in the duplicates benchmark). dedupe-store.ts keeps Kysely's
// versions for PostgreSQL inside a transaction. SQLite's statement cache
// (db.ts) prepares each text once. Runs inside the caller's transaction, which group commit
// shares with its neighbours: BEGIN IMMEDIATE holds the write lock, so the steps cannot race.

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

const ADD_TO_HOUR = `INSERT INTO llm_usage_hourly (hour, provider, model, shard, ${USAGE_COUNTERS.join(', ')})
  VALUES (?, ?, ?, 0, ${USAGE_COUNTERS.map(() => '?').join(', ')})
  ON CONFLICT (hour, provider, model, shard) DO UPDATE SET ${USAGE_COUNTERS.map((name) => `${name} = llm_usage_hourly.${name} + excluded.${name}`).join(', ')}`;

// A request with newer content may have replaced the record while this one was classifying;
// and a failure never replaces an answer.
const SAVE_ANSWER = `UPDATE classify_messages SET state = 'done', result = ?, updated_at = ? WHERE record_key = ? AND fingerprint = ?`;
const SAVE_FAILURE = `UPDATE classify_messages SET state = 'failed', result = NULL, updated_at = ?
  WHERE record_key = ? AND fingerprint = ? AND state = 'pending'`;

const INSERT_CALL = `INSERT INTO llm_calls (${CALL_COLUMNS.join(', ')}) VALUES (${CALL_COLUMNS.map(() => '?').join(', ')})`;

interface MessageFound {
  fingerprint: string;
  state: MessageState;
  result: string | null;
  updated_at: string;
}

type Stored = NonNullable<Claim['existing']>;

/** What the claim needs of a connection: Kysely, or the transaction group commit opened. */
export interface RawExecutor {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

const runOn =
  (trx: RawExecutor) =>
  async <R>(text: string, parameters: unknown[]): Promise<R[]> =>
    (await trx.executeQuery<R>(CompiledQuery.raw(text, parameters) as CompiledQuery<R>)).rows;

/** The usage of a call or a duplicate served: its own row (a call's) and its hour's totals. */
export async function addUsageSqlite(trx: RawExecutor, usage: UsageEvent): Promise<void> {
  const run = runOn(trx);
  const call = callRowOf(usage);
  if (call) await run(INSERT_CALL, CALL_COLUMNS.map((column) => call[column]));
  const counters = countersOf(usage);
  const { provider, model } = usage.kind === 'call' ? usage.call : usage;
  await run(ADD_TO_HOUR, [hourOf(usage.at), provider, model, ...USAGE_COUNTERS.map((name) => counters[name])]);
}

type ToStored = (recordKey: string, row: MessageFound) => Stored;

/** DedupeStore.bumpThread on SQLite. */
export async function bumpThreadSqlite(trx: RawExecutor, threadKey: string, now: string): Promise<number> {
  const [thread] = await runOn(trx)<{ seen_count: number }>(BUMP_THREAD, [threadKey, now, now]);
  return Number(thread!.seen_count);
}

/** DedupeStore.claimMessage on SQLite: undefined when this request inserted the record. */
export async function claimMessageSqlite(
  trx: RawExecutor,
  record: { record_key: string; fingerprint: string; conversation_id: string | null; now: string },
  toStored: ToStored,
): Promise<Stored | undefined> {
  const run = runOn(trx);
  const { record_key, now } = record;
  const inserted = await run(INSERT_MESSAGE, [record_key, record.fingerprint, record.conversation_id, now, now]);
  if (inserted.length > 0) return undefined;
  await run(TOUCH_MESSAGE, [now, record_key]);
  const [found] = await run<MessageFound>(FIND_MESSAGE, [record_key]);
  // The row exists: the conflict proves it, so a missing row here means it was purged in between.
  return found ? toStored(record_key, found) : { record_key, fingerprint: '', state: 'failed', classification: null, updated_at: now };
}

/** DedupeStore.claimFingerprint on SQLite: undefined when the record became the owner, else the owner. */
export async function claimFingerprintSqlite(trx: RawExecutor, fingerprintKey: string, recordKey: string, now: string): Promise<string | undefined> {
  const run = runOn(trx);
  const owned = await run(INSERT_OWNER, [fingerprintKey, recordKey, now, now]);
  if (owned.length > 0) return undefined;
  const [owner] = await run<{ record_key: string }>(TOUCH_OWNER, [now, fingerprintKey]);
  // An owner that is the record itself (a retried request) is no match.
  return owner && owner.record_key !== recordKey ? owner.record_key : undefined;
}

/** DedupeStore.findMessage on SQLite. */
export async function findMessageSqlite(trx: RawExecutor, recordKey: string, toStored: ToStored): Promise<Stored | undefined> {
  const [found] = await runOn(trx)<MessageFound>(FIND_MESSAGE, [recordKey]);
  return found && toStored(recordKey, found);
}

/** The answer (or the failure) and its usage, as DedupeStore.saveResult; true when it was stored. */
export async function saveSqlite(
  trx: RawExecutor,
  record: { record_key: string; fingerprint: string; classification: Classification | null; now: string },
  usage: UsageEvent | undefined,
): Promise<boolean> {
  const { numAffectedRows } = record.classification
    ? await trx.executeQuery(CompiledQuery.raw(SAVE_ANSWER, [JSON.stringify(record.classification), record.now, record.record_key, record.fingerprint]))
    : await trx.executeQuery(CompiledQuery.raw(SAVE_FAILURE, [record.now, record.record_key, record.fingerprint]));
  if (usage) await addUsageSqlite(trx, usage);
  return Number(numAffectedRows) === 1;
}
