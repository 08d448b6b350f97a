// The hot paths of dedupe on PostgreSQL, each one statement for a whole batch of requests (the
// store coalesces the calls that arrive together), so one round trip and one commit serve them
// all: the claim before the provider call, and the answer's write after it. A duplicate of a
// classified email is answered by its claim alone; a new email takes a claim and a write.
//
// The claim counts the thread, claims the record (or finds it, and keeps it longer), claims the
// content for a record it inserted (or finds its owner, and reads the owner's record), and
// counts a duplicate served in the usage rollup, in data-modifying CTEs that commit together.
// ON CONFLICT DO UPDATE, not DO NOTHING and a read: the read would see the statement's
// snapshot, which misses a row committed by a concurrent request after it was taken, while the
// upsert waits for that request and returns the row as it now is. `xmax = 0` tells the rows
// the statement inserted from the ones it updated (an update leaves its transaction id there).
//
// The batch goes in as one JSON parameter, so the text (and its prepared plan) does not depend
// on the batch size. The store keeps requests that share a thread, a record or a content in
// different batches: a statement may touch a row once.

import type pg from 'pg';
import { named } from '../shared/named-statement.js';
import type { MessageState } from './dedupe-store.js';
import { CALL_COLUMNS, addToHoursSql } from './usage-store.js';

const CLAIM = named(`WITH input AS (
    SELECT * FROM json_to_recordset($1::json) AS i(ord int, thread_key text, record_key text, fingerprint text,
      conversation_id text, now timestamptz, fingerprint_key text, hour timestamptz, provider text, model text)
  ), thread AS (
    INSERT INTO classify_threads AS t (thread_key, seen_count, created_at, updated_at)
    SELECT thread_key, 1, now, now FROM input ORDER BY thread_key
    ON CONFLICT (thread_key) DO UPDATE SET seen_count = t.seen_count + 1, updated_at = excluded.updated_at
    RETURNING t.thread_key, t.seen_count
  ), message AS (
    INSERT INTO classify_messages AS m (record_key, fingerprint, conversation_id, state, result, created_at, updated_at)
    SELECT record_key, fingerprint, conversation_id, 'pending', NULL, now, now FROM input ORDER BY record_key
    -- Seen again, so kept longer; a pending row keeps its time, which tells a stuck one apart.
    ON CONFLICT (record_key) DO UPDATE SET updated_at = CASE WHEN m.state = 'pending' THEN m.updated_at ELSE excluded.updated_at END
    RETURNING m.record_key, m.fingerprint, m.state, m.result, m.updated_at, m.xmax = 0 AS inserted
  ), owner AS (
    INSERT INTO classify_fingerprints AS f (fingerprint, record_key, created_at, updated_at)
    SELECT i.fingerprint_key, i.record_key, i.now, i.now FROM input i JOIN message USING (record_key)
    WHERE message.inserted ORDER BY i.fingerprint_key
    ON CONFLICT (fingerprint) DO UPDATE SET updated_at = excluded.updated_at
    RETURNING f.fingerprint, f.record_key, f.xmax = 0 AS inserted
  ), served AS (
    -- Found done with this very content: answered from the store, a duplicate served.
    SELECT i.ord, i.hour, i.provider, i.model, 0 AS calls, 0 AS input_tokens, 0 AS output_tokens, 1 AS duplicates_served, 0 AS fallbacks
    FROM input i JOIN message USING (record_key)
    WHERE NOT message.inserted AND message.fingerprint = i.fingerprint AND message.state = 'done' AND message.result IS NOT NULL
  ), served_hours AS (
    ${addToHoursSql('served')}
  )
  SELECT thread.seen_count, message.inserted, message.fingerprint, message.state, message.result, message.updated_at,
    owner.record_key AS owner, o.fingerprint AS owner_fingerprint, o.state AS owner_state, o.result AS owner_result,
    o.updated_at AS owner_updated_at, served.ord IS NOT NULL AS served
  FROM input i JOIN thread USING (thread_key) JOIN message USING (record_key)
  LEFT JOIN owner ON owner.fingerprint = i.fingerprint_key AND NOT owner.inserted AND owner.record_key <> i.record_key
  -- The owner's record as the snapshot has it: one committed since is missing (its columns null).
  -- Lateral, so each owner is one probe of the primary key and never a scan of the table.
  LEFT JOIN LATERAL (SELECT * FROM classify_messages WHERE record_key = owner.record_key) o ON true
  LEFT JOIN served ON served.ord = i.ord
  ORDER BY i.ord`);

export interface ClaimParams {
  thread_key: string;
  record_key: string;
  fingerprint: string;
  conversation_id: string | null;
  now: string;
  fingerprint_key: string;
  /** Where a duplicate served is counted: the hour (hourOf) and the model. */
  hour: string;
  provider: string;
  model: string;
}

export interface ClaimRow {
  seen_count: number;
  inserted: boolean;
  fingerprint: string;
  state: MessageState;
  result: string | null;
  updated_at: string;
  /** The content's other owner, when the record was inserted and the content was not its to claim. */
  owner: string | null;
  owner_fingerprint: string | null;
  owner_state: MessageState | null;
  owner_result: string | null;
  owner_updated_at: string | null;
  served: boolean;
}

export async function claimManyPostgres(pool: pg.Pool, claims: ClaimParams[]): Promise<ClaimRow[]> {
  const input = claims.map((claim, ord) => ({ ord, ...claim }));
  const { rows } = await pool.query<ClaimRow>({ ...CLAIM, values: [JSON.stringify(input)] });
  if (rows.length !== claims.length) throw new Error(`dedupe claim: ${rows.length} rows for ${claims.length} requests`);
  return rows;
}

// The answers, each only while its record still holds that content and a failure never over an
// answer (see DedupeStore.saveResult), with the usage of every call and duplicate in the batch.
const SAVE = named(`WITH input AS (
    SELECT * FROM json_to_recordset($1::json) AS i(ord int, record_key text, fingerprint text, result text, now timestamptz,
      hour timestamptz, provider text, model text, calls bigint, input_tokens bigint, output_tokens bigint,
      duplicates_served bigint, fallbacks bigint, call json)
  ), saved AS (
    UPDATE classify_messages m
    SET state = CASE WHEN i.result IS NULL THEN 'failed' ELSE 'done' END, result = i.result, updated_at = i.now
    FROM input i
    -- The key list ($2) gives the planner a row count and a probe of the primary key; from the
    -- JSON alone it counts 100 rows and hashed a scan of the whole table (1.6 ms at 5,000 records).
    WHERE m.record_key = ANY($2::text[]) AND m.record_key = i.record_key AND m.fingerprint = i.fingerprint
      AND (i.result IS NOT NULL OR m.state = 'pending')
    RETURNING i.ord
  ), calls AS (
    INSERT INTO llm_calls (${CALL_COLUMNS.join(', ')})
    SELECT ${CALL_COLUMNS.map((column) => `c.${column}`).join(', ')}
    FROM input i CROSS JOIN LATERAL json_populate_record(NULL::llm_calls, i.call) AS c
    WHERE json_typeof(i.call) = 'object' ORDER BY i.ord
  ), usage AS (
    SELECT * FROM input WHERE hour IS NOT NULL
  ), hours AS (
    ${addToHoursSql('usage')}
  )
  SELECT i.ord, saved.ord IS NOT NULL AS saved FROM input i LEFT JOIN saved USING (ord) ORDER BY i.ord`);

export interface SaveParams {
  record_key: string;
  fingerprint: string;
  /** The classification as JSON, or null to mark the record failed. */
  result: string | null;
  now: string;
  /** The usage to record with it, hour and counters as usage-store.ts has them; null for none. */
  usage: { hour: string; provider: string; model: string; counters: Record<string, number>; call: Record<string, unknown> | null } | null;
}

export async function saveManyPostgres(pool: pg.Pool, saves: SaveParams[]): Promise<boolean[]> {
  const { rows } = await pool.query<{ ord: number; saved: boolean }>(saveQuery(saves));
  return rows.map((row) => row.saved);
}

/** The statement and values of saveManyPostgres (exported so a test can explain its plan). */
export function saveQuery(saves: SaveParams[]): pg.QueryConfig {
  const input = saves.map(({ usage, ...save }, ord) => ({
    ord,
    ...save,
    ...(usage && { hour: usage.hour, provider: usage.provider, model: usage.model, ...usage.counters, call: usage.call }),
  }));
  return { ...SAVE, values: [JSON.stringify(input), saves.map((save) => save.record_key)] };
}
