// The dedupe store on PostgreSQL: fixed SQL texts as named statements. The two hot paths, the claim before
// the provider call and the answer's write after it, take whole batches (coalesced.ts forms them), so one
// round trip and one commit serve them all; a duplicate of a classified email costs its claim alone.

import { CompiledQuery } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type pg from 'pg';
import type { TransactionRunner } from '../../../shared/db/group-commit.js';
import { named } from '../../../shared/db/named-statement.js';
import type { ClassifyFingerprintRow } from '../../tables.js';
import type { UsageEvent } from '../../usage/records.js';
import { CALL_COLUMNS, USAGE_COUNTERS, callRowOf, countersOf, hourOf } from '../../usage/store/port.js';
import {
  type BatchDedupeStore,
  type Claim,
  type ClaimRequest,
  type DedupeStore,
  type MessageRow,
  type MessageState,
  type SaveRequest,
  storedMessage,
} from './port.js';

/**
 * Concurrent transactions adding to one (hour, model) row would queue on its lock until each
 * commits; spread over this many rows by connection they do not. The usage report sums them.
 * The connection's backend is busy with this statement only, so two in flight never share a
 * shard unless their pids collide modulo the shard count.
 */
const SHARDS = 16;

/**
 * Adds the rows of `source` (a CTE with the columns hour, provider, model and the counters) to
 * their hours, summed per hour and model first (one statement may touch a row once).
 */
function addToHours(source: string): string {
  const sums = USAGE_COUNTERS.map((name) => `sum(${name})`);
  const adds = USAGE_COUNTERS.map((name) => `${name} = h.${name} + excluded.${name}`);
  return `INSERT INTO llm_usage_hourly AS h (hour, provider, model, shard, ${USAGE_COUNTERS.join(', ')})
    SELECT hour, provider, model, pg_backend_pid() % ${SHARDS}, ${sums.join(', ')} FROM ${source} GROUP BY hour, provider, model
    ON CONFLICT (hour, provider, model, shard) DO UPDATE SET ${adds.join(', ')}`;
}

/** The usage columns of a batch's JSON rows (see usageOf), and the CTEs that write them. */
const USAGE_INPUT = `hour timestamptz, provider text, model text, ${USAGE_COUNTERS.map((name) => `${name} bigint`).join(', ')}, call json`;
const WRITE_USAGE = `calls AS (
    INSERT INTO llm_calls (${CALL_COLUMNS.join(', ')})
    SELECT ${CALL_COLUMNS.map((column) => `c.${column}`).join(', ')}
    FROM input i CROSS JOIN LATERAL json_populate_record(NULL::llm_calls, i.call) AS c
    WHERE json_typeof(i.call) = 'object' ORDER BY i.ord
  ), usage AS (
    SELECT * FROM input WHERE hour IS NOT NULL
  ), hours AS (
    ${addToHours('usage')}
  )`;

/**
 * Counts the thread, claims the record (or finds it, and keeps it longer), claims the content for a record it
 * inserted (or finds its owner and reads the owner's record), and counts a duplicate served in the usage
 * rollup, in data-modifying CTEs that commit together. ON CONFLICT DO UPDATE, not DO NOTHING and a read:
 * the read would see the statement's snapshot and miss a row a concurrent request committed after it,
 * while the upsert waits for that request and returns the row as it now is. `xmax = 0` tells the rows
 * inserted from the ones updated (an update leaves its transaction id there). The batch is one JSON
 * parameter, so the text and its plan do not depend on its size; it touches each row once (BatchDedupeStore).
 */
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
    -- The column is named fingerprint but holds the scoped key (migration 002 predates scopes).
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
    ${addToHours('served')}
  )
  SELECT thread.seen_count, message.inserted, message.fingerprint, message.state, message.result, message.updated_at,
    owner.record_key AS owner, o.fingerprint AS owner_fingerprint, o.state AS owner_state, o.result AS owner_result,
    o.updated_at AS owner_updated_at, served.ord IS NOT NULL AS served
  FROM input i JOIN thread USING (thread_key) JOIN message USING (record_key)
  LEFT JOIN owner ON owner.fingerprint = i.fingerprint_key AND NOT owner.inserted
  -- The owner's record as the snapshot has it: one committed since is missing (its columns null).
  -- Lateral, so each owner is one probe of the primary key and never a scan of the table; OFFSET 0
  -- keeps the planner from flattening it into a hash join, which a plan made on a small table
  -- without statistics did (a scan per claim, kept as the table grew).
  LEFT JOIN LATERAL (SELECT * FROM classify_messages WHERE record_key = owner.record_key OFFSET 0) o ON true
  LEFT JOIN served ON served.ord = i.ord
  ORDER BY i.ord`);

interface ClaimRow extends MessageRow {
  seen_count: number;
  inserted: boolean;
  /** The content's other owner, when the record was inserted and the content was not its to claim. */
  owner: string | null;
  owner_fingerprint: string | null;
  owner_state: MessageState | null;
  owner_result: string | null;
  owner_updated_at: string | null;
  served: boolean;
}

// The answers, each only while its record still holds that content and a failure never over an
// answer (see DedupeStore.saveResult), with the usage of every call and duplicate in the batch.
const SAVE = named(`WITH input AS (
    SELECT i.* FROM batch_elements($1::jsonb) AS e(value, ord)
    CROSS JOIN LATERAL jsonb_to_record(e.value) AS i(ord int, record_key text, fingerprint text, result text, now timestamptz, ${USAGE_INPUT})
  ), saved AS (
    UPDATE classify_messages m
    SET state = CASE WHEN i.result IS NULL THEN 'failed' ELSE 'done' END, result = i.result, updated_at = i.now
    FROM input i
    -- The batch counts as one row (batch_elements, migration 016), so each save probes the
    -- primary key: read with json_to_recordset it counted 100 rows and hashed a scan of the whole
    -- table (1.6 ms at 5,000 records), a plan each connection kept as the table grew.
    WHERE m.record_key = i.record_key AND m.fingerprint = i.fingerprint
      AND (i.result IS NOT NULL OR m.state = 'pending')
    RETURNING i.ord
  ), ${WRITE_USAGE}
  SELECT i.ord, saved.ord IS NOT NULL AS saved FROM input i LEFT JOIN saved USING (ord) ORDER BY i.ord`);

// Usage with no write of a record: the same rows as a save's, in a statement of their own.
const RECORD_USAGE = named(`WITH input AS (
    SELECT * FROM json_to_recordset($1::json) AS i(ord int, ${USAGE_INPUT})
  ), ${WRITE_USAGE}
  SELECT count(*) AS recorded FROM input`);

const FIND_MESSAGE = named(
  `SELECT fingerprint, state, result, updated_at FROM classify_messages WHERE record_key = $1`,
);

// One upsert: it waits for a concurrent claim of the content and returns the owner as it is now.
const CLAIM_OWNER =
  named(`INSERT INTO classify_fingerprints AS f (fingerprint, record_key, created_at, updated_at) VALUES ($1, $2, $3, $3)
  ON CONFLICT (fingerprint) DO UPDATE SET updated_at = excluded.updated_at
  RETURNING f.record_key, f.xmax = 0 AS inserted`);

// Whoever moved it first wins; the loser's record keeps its answer all the same.
const MOVE_OWNER = named(
  `UPDATE classify_fingerprints SET record_key = $3, updated_at = $4 WHERE fingerprint = $1 AND record_key = $2`,
);

const REPLACE_FINGERPRINT =
  named(`UPDATE classify_messages SET fingerprint = $3, state = 'pending', result = NULL, updated_at = $4
  WHERE record_key = $1 AND fingerprint = $2`);

const RECLAIM = named(`UPDATE classify_messages SET state = 'pending', updated_at = $4
  WHERE record_key = $1 AND fingerprint = $2 AND (state = 'failed' OR (state = 'pending' AND updated_at < $3))`);

/** Forgets the dedupe rows not touched since $1; counted in purgeBefore's answer. */
const PURGE_DEDUPE = ['classify_messages', 'classify_fingerprints', 'classify_threads'].map((table) =>
  named(`DELETE FROM ${table} WHERE updated_at < $1`),
);
/** The per-call usage rows; the hourly totals stay (cost history). */
const PURGE_CALLS = named(`DELETE FROM llm_calls WHERE at < $1`);

type Statement = { name: string; text: string };
type Run = <R extends object>(
  statement: Statement,
  values: readonly unknown[],
) => Promise<{ rows: R[]; changes: number }>;

function runOnPool(pool: pg.Pool): Run {
  return async <R extends object>(statement: Statement, values: readonly unknown[]) => {
    const result = await pool.query<R>({ ...statement, values: [...values] });
    return { rows: result.rows, changes: result.rowCount ?? 0 };
  };
}

/** Inside a transaction of the database's runner: its connection, through Kysely (unnamed). */
function runOnTransaction(trx: DatabaseHandle): Run {
  return async <R extends object>(statement: Statement, values: readonly unknown[]) => {
    const result = await trx.executeQuery<R>(CompiledQuery.raw(statement.text, [...values]) as CompiledQuery<R>);
    return { rows: result.rows, changes: Number(result.numAffectedRows ?? 0) };
  };
}

/** The dedupe store over `pool`; `inTransaction` (the database's runner) opens its transactions. */
export function createPostgresDedupeStore(pool: pg.Pool, inTransaction: TransactionRunner): BatchDedupeStore {
  return { ...statementsOn(runOnPool(pool)), transaction: (work) => inTransaction((trx) => work(storeInside(trx))) };
}

/** The store inside an open transaction: every statement on it, nested transactions join it. */
function storeInside(trx: DatabaseHandle): DedupeStore {
  const store: DedupeStore = { ...statementsOn(runOnTransaction(trx)), transaction: (work) => work(store) };
  return store;
}

/** The usage columns of one JSON row (USAGE_INPUT); absent for none. */
function usageOf(usage: UsageEvent | null | undefined) {
  if (!usage) return {};
  const { provider, model } = usage.kind === 'call' ? usage.call : usage;
  return { hour: hourOf(usage.at), provider, model, ...countersOf(usage), call: callRowOf(usage) };
}

/** A save as its JSON row (exported with saveQuery so a test can explain the statement's plan). */
export interface SaveParams {
  record_key: string;
  fingerprint: string;
  /** The classification as JSON, or null to mark the record failed. */
  result: string | null;
  now: string;
  usage?: UsageEvent | null;
}

/** The statement and values of saveMany. */
export function saveQuery(saves: readonly SaveParams[]): pg.QueryConfig {
  const input = saves.map(({ usage, ...save }, ord) => ({ ord, ...save, ...usageOf(usage) }));
  return { ...SAVE, values: [JSON.stringify(input)] };
}

function claimOf(request: ClaimRequest, row: ClaimRow): Claim {
  const owner =
    row.owner === null
      ? undefined
      : {
          record_key: row.owner,
          message:
            row.owner_fingerprint === null
              ? undefined
              : storedMessage(row.owner, {
                  fingerprint: row.owner_fingerprint,
                  state: row.owner_state!,
                  result: row.owner_result,
                  updated_at: row.owner_updated_at!,
                }),
        };
  return {
    seen_count: Number(row.seen_count),
    existing: row.inserted ? undefined : storedMessage(request.record_key, row),
    owner,
    served: row.served,
  };
}

type Statements = Omit<BatchDedupeStore, 'transaction'>;

function statementsOn(run: Run): Statements {
  const claimMany = async (requests: readonly ClaimRequest[]): Promise<Claim[]> => {
    const input = requests.map(({ served, ...keys }, ord) => ({
      ord,
      ...keys,
      hour: hourOf(served.at),
      provider: served.provider,
      model: served.model,
    }));
    const { rows } = await run<ClaimRow>(CLAIM, [JSON.stringify(input)]);
    if (rows.length !== requests.length)
      throw new Error(`dedupe claim: ${rows.length} rows for ${requests.length} requests`);
    return rows.map((row, index) => claimOf(requests[index]!, row));
  };

  const saveMany = async (saves: readonly SaveRequest[]): Promise<boolean[]> => {
    const query = saveQuery(
      saves.map(({ classification, ...save }) => ({
        ...save,
        result: classification ? JSON.stringify(classification) : null,
        usage: save.usage,
      })),
    );
    const { rows } = await run<{ saved: boolean }>(SAVE, query.values!);
    return rows.map((row) => row.saved);
  };

  return {
    claimMany,
    saveMany,
    claim: async (request) => (await claimMany([request]))[0]!,
    saveResult: async (record_key, fingerprint, classification, now, usage) =>
      (await saveMany([{ record_key, fingerprint, classification, now, usage }]))[0]!,
    async recordUsage(usage) {
      await run(RECORD_USAGE, [JSON.stringify([{ ord: 0, ...usageOf(usage) }])]);
    },
    async findMessage(recordKey) {
      const { rows } = await run<MessageRow>(FIND_MESSAGE, [recordKey]);
      return rows[0] && storedMessage(recordKey, rows[0]);
    },
    async claimFingerprint(fingerprintKey, recordKey, now) {
      const { rows } = await run<Pick<ClassifyFingerprintRow, 'record_key'> & { inserted: boolean }>(CLAIM_OWNER, [
        fingerprintKey,
        recordKey,
        now,
      ]);
      return rows[0]!.inserted ? undefined : rows[0]!.record_key;
    },
    async moveFingerprint(fingerprintKey, from, to, now) {
      await run(MOVE_OWNER, [fingerprintKey, from, to, now]);
    },
    async replaceFingerprint(recordKey, previous, next, now) {
      return (await run(REPLACE_FINGERPRINT, [recordKey, previous, next, now])).changes === 1;
    },
    async reclaim(recordKey, fingerprint, staleBefore, now) {
      return (await run(RECLAIM, [recordKey, fingerprint, staleBefore, now])).changes === 1;
    },
    async purgeBefore(before) {
      let removed = 0;
      for (const statement of PURGE_DEDUPE) removed += (await run(statement, [before])).changes;
      await run(PURGE_CALLS, [before]);
      return removed;
    },
  };
}
