import { type Kysely, sql } from 'kysely';
import type { Classification } from './categories.js';
import type { UsageEvent } from './usage.js';
import { hourOf, POSTGRES_USAGE_SHARDS } from './usage-store.js';

// PostgreSQL: the common dedupe outcomes in one autocommit statement, one round trip instead of
// a transaction of four to six. The statement makes every claim dedupe.ts would make in turn,
// each guarded by the one before it, and says which of them took:
// - the record of this message is already answered for this content: a duplicate, served from
//   the store, its usage counted in the same statement;
// - the record was new and took the content's fingerprint too: a new email (or a thread's next);
// - the record was new and the content belongs to another record: a duplicate of that one.
// Anything else (a record pending, failed or holding other content, a race on the fingerprint)
// is left to the general path in dedupe.ts, which goes on from here: the thread was counted.
// The sub-statements share one snapshot, so each one that depends on another reads that one's
// RETURNING, never the table.

export interface OneStepKeys {
  recordKey: string;
  threadKey: string;
  fingerprintKey: string;
  fingerprint: string;
  conversationId: string | null;
  now: string;
}

export type OneStepOutcome =
  | { kind: 'served'; seenCount: number; classification: Classification }
  | { kind: 'created'; seenCount: number }
  | { kind: 'owned'; seenCount: number; owner: string }
  /** The message record existed, or the fingerprint raced: the thread is counted, the rest is not done. */
  | { kind: 'undecided'; seenCount: number; inserted: boolean };

interface OneStepRow {
  hit_result: string | null;
  hits: number;
  inserted: number;
  owns: number;
  owner: string | null;
  seen_count: number;
}

export async function decideInOneStatement(
  db: Kysely<unknown>,
  keys: OneStepKeys,
  served: Extract<UsageEvent, { kind: 'duplicate' }>,
): Promise<OneStepOutcome> {
  const { recordKey, threadKey, fingerprintKey, fingerprint, conversationId, now } = keys;
  const { rows } = await sql<OneStepRow>`
    WITH hit AS (
      UPDATE classify_messages SET updated_at = ${now}
      WHERE record_key = ${recordKey} AND fingerprint = ${fingerprint} AND state = 'done' AND result IS NOT NULL
      RETURNING result
    ), msg AS (
      INSERT INTO classify_messages (record_key, fingerprint, conversation_id, state, result, created_at, updated_at)
      SELECT ${recordKey}, ${fingerprint}, ${conversationId}, 'pending', NULL, ${now}, ${now} WHERE NOT EXISTS (SELECT 1 FROM hit)
      ON CONFLICT (record_key) DO NOTHING
      RETURNING record_key
    ), fp_new AS (
      INSERT INTO classify_fingerprints (fingerprint, record_key, created_at, updated_at)
      SELECT ${fingerprintKey}, ${recordKey}, ${now}, ${now} WHERE EXISTS (SELECT 1 FROM msg)
      ON CONFLICT (fingerprint) DO NOTHING
      RETURNING record_key
    ), fp_owner AS (
      UPDATE classify_fingerprints SET updated_at = ${now}
      WHERE fingerprint = ${fingerprintKey} AND EXISTS (SELECT 1 FROM msg)
      RETURNING record_key
    ), thread AS (
      INSERT INTO classify_threads (thread_key, seen_count, created_at, updated_at) VALUES (${threadKey}, 1, ${now}, ${now})
      ON CONFLICT (thread_key) DO UPDATE SET seen_count = classify_threads.seen_count + 1, updated_at = ${now}
      RETURNING seen_count
    ), usage AS (
      INSERT INTO llm_usage_hourly AS u (hour, provider, model, shard, calls, input_tokens, output_tokens, duplicates_served, fallbacks)
      SELECT ${hourOf(served.at)}, ${served.provider}, ${served.model}, pg_backend_pid() % ${sql.lit(POSTGRES_USAGE_SHARDS)}, 0, 0, 0, 1, 0
      WHERE EXISTS (SELECT 1 FROM hit)
      ON CONFLICT (hour, provider, model, shard) DO UPDATE SET duplicates_served = u.duplicates_served + 1
      RETURNING 1
    )
    SELECT (SELECT result FROM hit) AS hit_result, (SELECT count(*) FROM hit)::int AS hits,
      (SELECT count(*) FROM msg)::int AS inserted, (SELECT count(*) FROM fp_new)::int AS owns,
      (SELECT record_key FROM fp_owner) AS owner, (SELECT seen_count FROM thread)::int AS seen_count`.execute(db);
  const row = rows[0]!;
  const seenCount = Number(row.seen_count);
  if (row.hits > 0 && row.hit_result !== null) {
    return { kind: 'served', seenCount, classification: JSON.parse(row.hit_result) as Classification };
  }
  if (row.inserted > 0) {
    if (row.owns > 0) return { kind: 'created', seenCount };
    // A record that is its own owner (a retried request) matches nothing, as claimFingerprint says.
    if (row.owner === recordKey) return { kind: 'created', seenCount };
    if (row.owner !== null) return { kind: 'owned', seenCount, owner: row.owner };
  }
  return { kind: 'undecided', seenCount, inserted: row.inserted > 0 };
}
