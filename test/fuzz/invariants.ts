// The database's invariants, read straight from the tables after every case. Each query
// returns the rows that break its rule, so a failure names them.
//
// What is asserted, and why it must hold whatever the requests were:
//  work items and their dispatch log
//   1. at most one open dispatch entry per item (also a partial unique index)
//   2. a final item (completed, failed, cancelled) has completed_at and the outcome of its status
//   3. an item that is not final has neither
//   4. a dispatched, in_progress or blocked item has an assigned agent and exactly one open
//      entry, naming that agent
//   5. a queued or final item has no open entry; a queued item has no agent
//   6. version ≥ 1, attempts ≥ 0, priority 1–5, max_attempts 1–100, retry_delay_s 0–86400
//   7. a running lease only on dispatched or in_progress items, with its length; none while blocked
//   8. a closed entry has an outcome, a reason, and closed no earlier than it opened; no entry
//      opened before its item was created
//   9. leases lost (entries closed as lease_expired) ≤ max_attempts: the lease that runs out on
//      the last attempt fails the item. (attempts ≤ max_attempts itself does NOT hold: a person
//      may release or reassign an item, and its holder may claim it again with start=false; each
//      claim counts, and only a lost lease is held to max_attempts.)
//  10. updated_at and completed_at are never before created_at
//  11. every stored payload and event is JSON; event types are the documented ones
//  12. every remembered Idempotency-Key answer is a work item as the API returns it
//  13. no acknowledged write is lost: every item an answer showed at version v is still there
//      at version ≥ v, unless a DELETE answered 204 for it
//  15. every item has its work.created event, and no item with a work.deleted event is there:
//      a change and its event commit together
//  16. no final item has an open question: finishing an item closes it (moot) in the same commit
//  tokens: the agent name is set exactly for agent tokens
//  classification (once every request has been answered)
//  14. no record is left pending; done ⇔ it holds a result, which is JSON

import { type Kysely, sql } from 'kysely';
import type { ValidateFunction } from 'ajv';
import type { Database } from '../../src/shared/db/database.js';

export interface InvariantInput {
  database: Database;
  /** Versions the answers showed, by item id. */
  acknowledged: ReadonlyMap<string, number>;
  deleted: ReadonlySet<string>;
  /** The 201 schema of POST /work, to judge remembered answers with. */
  workItem: ValidateFunction;
  /** Events already checked: only newer ones are read again. */
  eventsAfter: number;
  /** Ids named by work.created and work.deleted events so far; filled in here. */
  created: Set<string>;
  removed: Set<string>;
  /**
   * Only items changed since then are read for the per-item rules (every change bumps
   * updated_at, and the dispatch log changes only with its item); null reads them all. Keeps a
   * long run from reading the whole table after every case.
   */
  changedSince: string | null;
}

export interface InvariantReport {
  broken: string[];
  lastEventId: number;
}

const EVENT_TYPES = new Set([
  'work.created',
  'work.updated',
  'work.deleted',
  'work.commented',
  'question.asked',
  'question.answered',
  'question.moot',
  'project.created',
  'project.updated',
]);
const FINAL = sql`('completed', 'failed', 'cancelled')`;
const HELD = sql`('dispatched', 'in_progress', 'blocked')`;

async function rows(db: Kysely<any>, query: ReturnType<typeof sql>): Promise<Array<Record<string, unknown>>> {
  return (await query.execute(db)).rows as Array<Record<string, unknown>>;
}

function parses(text: unknown): boolean {
  try {
    JSON.parse(String(text));
    return true;
  } catch {
    return false;
  }
}

export async function checkInvariants(input: InvariantInput): Promise<InvariantReport> {
  const db = input.database.kysely as Kysely<any>;
  const broken: string[] = [];
  const since = input.changedSince;
  // The per-item rules read only recent items unless asked for all.
  const recent = (column: string) =>
    since === null ? sql`1 = 1` : sql`${sql.ref(column)} IN (SELECT id FROM work_items WHERE updated_at >= ${since})`;
  const rule = async (name: string, query: ReturnType<typeof sql>) => {
    const found = await rows(db, query);
    if (found.length > 0) broken.push(`${name}: ${JSON.stringify(found.slice(0, 3))}`);
  };

  await rule(
    '1 more than one open dispatch entry',
    sql`SELECT work_item_id, COUNT(*) AS open FROM dispatch_log WHERE completed_at IS NULL AND ${recent('work_item_id')} GROUP BY work_item_id HAVING COUNT(*) > 1`,
  );
  await rule(
    '2 final item without completed_at or with the wrong outcome',
    sql`SELECT id, status, outcome, completed_at FROM work_items WHERE ${recent('id')} AND status IN ${FINAL} AND (completed_at IS NULL OR outcome IS NULL
        OR NOT ((status = 'completed' AND outcome = 'success') OR (status = 'failed' AND outcome = 'failed') OR (status = 'cancelled' AND outcome = 'cancelled')))`,
  );
  await rule(
    '3 open item with an outcome or completed_at',
    sql`SELECT id, status, outcome, completed_at FROM work_items WHERE ${recent('id')} AND status NOT IN ${FINAL} AND (outcome IS NOT NULL OR completed_at IS NOT NULL)`,
  );
  await rule(
    '4 held item without exactly one open entry naming its agent',
    sql`SELECT w.id, w.status, w.assigned_agent,
          (SELECT COUNT(*) FROM dispatch_log d WHERE d.work_item_id = w.id AND d.completed_at IS NULL) AS open,
          (SELECT MAX(d.agent) FROM dispatch_log d WHERE d.work_item_id = w.id AND d.completed_at IS NULL) AS open_agent
        FROM work_items w WHERE ${recent('w.id')} AND w.status IN ${HELD}
          AND (w.assigned_agent IS NULL
            OR (SELECT COUNT(*) FROM dispatch_log d WHERE d.work_item_id = w.id AND d.completed_at IS NULL) <> 1
            OR NOT EXISTS (SELECT 1 FROM dispatch_log d WHERE d.work_item_id = w.id AND d.completed_at IS NULL AND d.agent = w.assigned_agent))`,
  );
  await rule(
    '5 queued or final item with an open entry',
    sql`SELECT w.id, w.status FROM work_items w WHERE ${recent('w.id')} AND w.status IN ('queued', 'completed', 'failed', 'cancelled')
        AND EXISTS (SELECT 1 FROM dispatch_log d WHERE d.work_item_id = w.id AND d.completed_at IS NULL)`,
  );
  await rule(
    '5 queued item with an agent',
    sql`SELECT id, assigned_agent FROM work_items WHERE ${recent('id')} AND status = 'queued' AND assigned_agent IS NOT NULL`,
  );
  await rule(
    '6 counter or setting out of range',
    sql`SELECT id, version, attempts, priority, max_attempts, retry_delay_s FROM work_items
        WHERE ${recent('id')} AND (version < 1 OR attempts < 0 OR priority NOT BETWEEN 1 AND 5 OR max_attempts NOT BETWEEN 1 AND 100 OR retry_delay_s NOT BETWEEN 0 AND 86400)`,
  );
  await rule(
    '7 lease on an item that cannot hold one',
    sql`SELECT id, status, lease_s, lease_expires_at FROM work_items
        WHERE ${recent('id')} AND ((lease_expires_at IS NOT NULL AND (status NOT IN ('dispatched', 'in_progress') OR lease_s IS NULL))
           OR (status = 'blocked' AND lease_expires_at IS NOT NULL))`,
  );
  await rule(
    '8 closed entry without outcome or reason, or closed before it opened',
    sql`SELECT id, work_item_id, dispatched_at, completed_at, outcome, reason FROM dispatch_log
        WHERE ${recent('work_item_id')} AND completed_at IS NOT NULL AND (outcome IS NULL OR reason IS NULL OR completed_at < dispatched_at)`,
  );
  await rule(
    '8 dispatch entry opened before its item was created',
    sql`SELECT d.id, d.work_item_id, d.dispatched_at, w.created_at FROM dispatch_log d JOIN work_items w ON w.id = d.work_item_id
        WHERE ${recent('w.id')} AND d.dispatched_at < w.created_at`,
  );
  await rule(
    '9 more leases lost than max_attempts',
    sql`SELECT w.id, w.max_attempts, COUNT(*) AS lost FROM work_items w JOIN dispatch_log d ON d.work_item_id = w.id
        WHERE ${recent('w.id')} AND d.reason = 'lease_expired' GROUP BY w.id, w.max_attempts HAVING COUNT(*) > w.max_attempts`,
  );
  await rule(
    '10 timestamps out of order',
    sql`SELECT id, created_at, updated_at, completed_at FROM work_items WHERE ${recent('id')} AND (updated_at < created_at OR completed_at < created_at)`,
  );

  await rule(
    '16 final item with an open question',
    sql`SELECT q.id, q.work_item_id, w.status FROM work_questions q JOIN work_items w ON w.id = q.work_item_id WHERE q.status = 'open' AND w.status IN ${FINAL} AND ${recent('w.id')}`,
  );

  const payloads = await rows(
    db,
    sql`SELECT id, payload FROM work_items WHERE ${recent('id')} AND payload IS NOT NULL`,
  );
  for (const row of payloads) if (!parses(row.payload)) broken.push(`11 payload of ${String(row.id)} is not JSON`);
  const events = await rows(db, sql`SELECT id, type, data FROM events WHERE id > ${input.eventsAfter} ORDER BY id`);
  let lastEventId = input.eventsAfter;
  for (const event of events) {
    lastEventId = Math.max(lastEventId, Number(event.id));
    if (!EVENT_TYPES.has(String(event.type)) || !parses(event.data)) {
      broken.push(`11 event ${String(event.id)}: ${String(event.type)} ${String(event.data).slice(0, 80)}`);
      continue;
    }
    const id = (JSON.parse(String(event.data)) as { id?: unknown }).id;
    if (event.type === 'work.created' && typeof id === 'string') input.created.add(id);
    if (event.type === 'work.deleted' && typeof id === 'string') input.removed.add(id);
  }

  for (const row of await rows(
    db,
    sql`SELECT scope, idempotency_key, response_status, response_body FROM idempotency_keys`,
  )) {
    const answer = parses(row.response_body) ? JSON.parse(String(row.response_body)) : undefined;
    if (Number(row.response_status) !== 201 || !input.workItem(answer)) {
      broken.push(
        `12 remembered answer for key ${JSON.stringify(row.idempotency_key)} is not a work item: ${JSON.stringify(input.workItem.errors?.slice(0, 2))}`,
      );
    }
  }

  // Rules 13 and 15 read every item: on the full checks only.
  const stored = new Map(
    since === null
      ? (await rows(db, sql`SELECT id, version FROM work_items`)).map((row) => [String(row.id), Number(row.version)])
      : [],
  );
  for (const id of stored.keys()) {
    if (!input.created.has(id)) broken.push(`15 item ${id} has no work.created event`);
    if (input.removed.has(id)) broken.push(`15 item ${id} is there after its work.deleted event`);
  }
  for (const [id, version] of since === null ? input.acknowledged : []) {
    if (input.deleted.has(id)) continue;
    const now = stored.get(id);
    if (now === undefined) broken.push(`13 item ${id}, acknowledged at version ${version}, is gone`);
    else if (now < version) broken.push(`13 item ${id} is at version ${now}, below the acknowledged ${version}`);
  }

  await rule(
    'tokens: agent set for a role other than agent or member, or missing',
    sql`SELECT id, role, agent FROM tokens WHERE (role IN ('agent', 'member')) <> (agent IS NOT NULL)`,
  );

  await rule(
    '14 classification left pending after every request was answered',
    sql`SELECT record_key, state FROM classify_messages WHERE state = 'pending'`,
  );
  await rule(
    '14 classification record whose state and result disagree',
    sql`SELECT record_key, state FROM classify_messages WHERE (state = 'done') <> (result IS NOT NULL)`,
  );
  for (const row of await rows(db, sql`SELECT record_key, result FROM classify_messages WHERE result IS NOT NULL`)) {
    if (!parses(row.result)) broken.push(`14 result of ${String(row.record_key)} is not JSON`);
  }
  return { broken, lastEventId };
}
