// The dedupe claim on PostgreSQL as one statement, so one round trip and one commit: the thread
// counted, the record claimed (or found, and kept longer), the content claimed for a new record
// (or its owner found and read), and a duplicate served counted in the usage rollup, all in
// data-modifying CTEs that commit together. With the answer's write after the provider call, a
// new email costs two round trips and a duplicate of a classified email one.
//
// ON CONFLICT DO UPDATE, not DO NOTHING and a read: the read would see the statement's snapshot,
// which misses a row committed by a concurrent request after it was taken, while the upsert
// waits for that request and returns the row as it now is. `xmax = 0` tells the rows this
// statement inserted from the ones it updated (an update leaves its own transaction id there).

import type pg from 'pg';
import { named } from '../shared/named-statement.js';
import type { MessageState } from './dedupe-store.js';
import { duplicateServedSql } from './usage-store.js';

const CLAIM = named(`WITH thread AS (
    INSERT INTO classify_threads AS t (thread_key, seen_count, created_at, updated_at) VALUES ($1, 1, $5, $5)
    ON CONFLICT (thread_key) DO UPDATE SET seen_count = t.seen_count + 1, updated_at = excluded.updated_at
    RETURNING t.seen_count
  ), message AS (
    INSERT INTO classify_messages AS m (record_key, fingerprint, conversation_id, state, result, created_at, updated_at)
    VALUES ($2, $3, $4, 'pending', NULL, $5, $5)
    -- Seen again, so kept longer; a pending row keeps its time, which tells a stuck one apart.
    ON CONFLICT (record_key) DO UPDATE SET updated_at = CASE WHEN m.state = 'pending' THEN m.updated_at ELSE excluded.updated_at END
    RETURNING m.fingerprint, m.state, m.result, m.updated_at, m.xmax = 0 AS inserted
  ), owner AS (
    INSERT INTO classify_fingerprints AS f (fingerprint, record_key, created_at, updated_at)
    SELECT $6, $2, $5, $5 FROM message WHERE message.inserted
    ON CONFLICT (fingerprint) DO UPDATE SET updated_at = excluded.updated_at
    RETURNING f.record_key, f.xmax = 0 AS inserted
  ), served AS (
    ${duplicateServedSql(
      { hour: '$7', provider: '$8', model: '$9' },
      "FROM message WHERE NOT message.inserted AND message.fingerprint = $3 AND message.state = 'done' AND message.result IS NOT NULL",
    )}
    RETURNING 1
  )
  SELECT thread.seen_count, message.inserted, message.fingerprint, message.state, message.result, message.updated_at,
    owner.record_key AS owner, o.fingerprint AS owner_fingerprint, o.state AS owner_state, o.result AS owner_result,
    o.updated_at AS owner_updated_at, EXISTS (SELECT FROM served) AS served
  FROM thread CROSS JOIN message
  -- The owner's record as the snapshot has it: one committed since is missing (its columns null).
  LEFT JOIN owner ON NOT owner.inserted AND owner.record_key <> $2
  LEFT JOIN classify_messages o ON o.record_key = owner.record_key`);

export interface ClaimParams {
  thread_key: string;
  record_key: string;
  fingerprint: string;
  conversation_id: string | null;
  now: string;
  fingerprint_key: string;
  served: { hour: string; provider: string; model: string };
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

export async function claimPostgres(pool: pg.Pool, params: ClaimParams): Promise<ClaimRow> {
  const { rows } = await pool.query<ClaimRow>({
    ...CLAIM,
    values: [
      params.thread_key,
      params.record_key,
      params.fingerprint,
      params.conversation_id,
      params.now,
      params.fingerprint_key,
      params.served.hour,
      params.served.provider,
      params.served.model,
    ],
  });
  return rows[0]!;
}
