import type pg from 'pg';
import { dispatchLogJsonSql, summaryJsonSql, timeSql } from './item-view.js';
import { named } from '../shared/named-statement.js';
import { type RowWithLog, split } from './store-postgres.js';
import type { ClaimBatch, ItemWithDispatches } from './store.js';

// The claim on PostgreSQL: a batch of claimers (claims.ts gathers the ones that arrive together)
// in one statement, so one round trip and one commit serve them all. The claimers come in as
// arrays, so the text, and its prepared plan, are the same whatever the batch size.
//
// Each claimer first gets its own oldest dispatched item (`mine`); the claimers left over take
// the first queued items in queue order, in the order they asked. SKIP LOCKED lets concurrent
// batches, and other instances, pass the rows another batch is taking instead of waiting.
//
// The attempt rule is lifecycle.ts's claimStartsAttempt: re-claiming an item one's own claim
// dispatched, lease on, continues that attempt.
const CLAIM = named(`WITH req AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::uuid[], $6::text[], $7::text[])
      WITH ORDINALITY AS r(agent, status, lease_s, lease_expires_at, dispatch_id, actor_name, actor_role, ord)
  ), mine AS (
    SELECT req.ord, m.id, 'dispatched'::text AS was, m.attempts AS attempts_was, m.lease_expires_at AS lease_was
    FROM req CROSS JOIN LATERAL (
      SELECT id, attempts, lease_expires_at FROM work_items
      WHERE assigned_agent = req.agent AND status = 'dispatched'
        AND ($8::text[] IS NULL OR type = ANY($8)) AND ($9::uuid IS NULL OR project_id = $9)
      ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
    ) m
  ), wanting AS (
    SELECT ord, row_number() OVER (ORDER BY ord) AS n FROM req WHERE ord NOT IN (SELECT ord FROM mine)
  ), queued AS (
    SELECT q.id, q.attempts AS attempts_was, q.lease_expires_at AS lease_was,
      row_number() OVER (ORDER BY q.priority, q.created_at, q.id) AS n
    FROM (
      SELECT id, attempts, lease_expires_at, priority, created_at FROM work_items
      WHERE status = 'queued' AND (run_after IS NULL OR run_after <= $10)
        AND ($8::text[] IS NULL OR type = ANY($8)) AND ($9::uuid IS NULL OR project_id = $9)
      ORDER BY priority, created_at, id LIMIT (SELECT count(*) FROM wanting) FOR UPDATE SKIP LOCKED
    ) q
  ), picked AS (
    SELECT ord, id, was, attempts_was, lease_was FROM mine
    UNION ALL
    SELECT wanting.ord, queued.id, 'queued', queued.attempts_was, queued.lease_was FROM wanting JOIN queued USING (n)
  ), claimed AS (
    UPDATE work_items w
    SET status = req.status, assigned_agent = req.agent,
        attempts = CASE WHEN p.was = 'dispatched' AND p.lease_was IS NOT NULL AND p.attempts_was > 0 THEN w.attempts ELSE w.attempts + 1 END,
        lease_s = req.lease_s, lease_expires_at = req.lease_expires_at, run_after = NULL, version = w.version + 1, updated_at = $10
    FROM picked p JOIN req USING (ord)
    WHERE w.id = p.id
    RETURNING w.*, p.ord, p.was, p.attempts_was, p.lease_was, req.dispatch_id AS opened_id, req.actor_name, req.actor_role
  ), opened AS (
    INSERT INTO dispatch_log (id, work_item_id, agent, dispatched_at, completed_at, outcome, reason)
    SELECT opened_id, id, assigned_agent, $10, NULL, NULL, NULL FROM claimed WHERE was = 'queued'
  ), history AS (
    INSERT INTO work_history (work_item_id, at, actor, role, action, changes)
    SELECT id, $10, actor_name, actor_role, 'claimed', json_build_object(
      'status', json_build_object('from', was, 'to', status),
      'assigned_agent', json_build_object('from', CASE WHEN was = 'queued' THEN NULL ELSE assigned_agent END, 'to', assigned_agent),
      'attempts', json_build_object('from', attempts_was, 'to', attempts),
      'lease_expires_at', json_build_object('from', ${timeSql('lease_was')}, 'to', ${timeSql('lease_expires_at')})
    )::text FROM claimed ORDER BY ord
  ), event AS (
    INSERT INTO events (type, data, created_at)
    SELECT $11, ${summaryJsonSql('claimed', { actor: "json_build_object('name', actor_name, 'role', actor_role)" })}, $10
    FROM claimed ORDER BY ord
  )
  SELECT claimed.*, ${dispatchLogJsonSql('claimed.id')} AS dispatch_log FROM claimed`);

interface ClaimedRow extends RowWithLog {
  ord: number;
  was: string;
  attempts_was: number;
  lease_was: string | null;
  opened_id: string;
  actor_name: string;
  actor_role: string;
}

export async function claimPostgres(pool: pg.Pool, batch: ClaimBatch): Promise<(ItemWithDispatches | null)[]> {
  const { claimers } = batch;
  const { rows } = await pool.query<ClaimedRow>(claimQuery(batch));
  const answers: (ItemWithDispatches | null)[] = claimers.map(() => null);
  for (const found of rows) {
    const { ord, was, attempts_was: _attempts, lease_was: _lease, opened_id, actor_name: _name, actor_role: _role, ...withLog } = found;
    const claimed = split(withLog);
    // The log was read as it stood before this statement: add the entry it opened.
    if (was === 'queued') {
      claimed.dispatches.push({
        id: opened_id,
        work_item_id: claimed.row.id,
        agent: claimed.row.assigned_agent as string,
        dispatched_at: batch.now,
        completed_at: null,
        outcome: null,
        reason: null,
      });
    }
    answers[Number(ord) - 1] = claimed;
  }
  return answers;
}

/** The statement and values of claimPostgres (exported so a test can explain its plan). */
export function claimQuery(batch: ClaimBatch): { name: string; text: string; values: unknown[] } {
  const { claimers } = batch;
  return {
    ...CLAIM,
    values: [
      claimers.map((c) => c.agent),
      claimers.map((c) => c.status),
      claimers.map((c) => c.lease_s),
      claimers.map((c) => c.lease_expires_at),
      claimers.map((c) => c.dispatch_id),
      claimers.map((c) => c.actor.name),
      claimers.map((c) => c.actor.role),
      batch.types,
      batch.project_id,
      batch.now,
      batch.event_type,
    ],
  };
}
