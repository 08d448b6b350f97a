import type { Kysely, Transaction } from 'kysely';
import { eventData } from './item-view.js';
import { claimStartsAttempt } from './lifecycle.js';
import type { ClaimBatch, Claimer, ItemWithDispatches, WorkStore } from './store.js';
import type { DispatchRow, WorkItemRow, WorkTables } from './tables.js';

// The claim on SQLite: the batch claims.ts gathers, inside the one transaction of a group
// commit. That transaction is the only writer, so reading the candidates and writing them is
// atomic. Each claimer's own dispatched item first; one read of the queue for the rest.

type Executor = Kysely<WorkTables> | Transaction<WorkTables>;

export async function claimSqlite(store: WorkStore, db: Executor, batch: ClaimBatch): Promise<(ItemWithDispatches | null)[]> {
  const mine: (WorkItemRow | undefined)[] = [];
  for (const claimer of batch.claimers) {
    mine.push(
      await claimable(db, batch)
        .selectAll()
        .where('assigned_agent', '=', claimer.agent)
        .where('status', '=', 'dispatched')
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst(),
    );
  }
  const wanting = mine.filter((row) => row === undefined).length;
  const queued =
    wanting === 0
      ? []
      : await claimable(db, batch)
          .selectAll()
          .where('status', '=', 'queued')
          .where((eb) => eb.or([eb('run_after', 'is', null), eb('run_after', '<=', batch.now)]))
          .orderBy('priority')
          .orderBy('created_at')
          .orderBy('id')
          .limit(wanting)
          .execute();
  const claimed: (ItemWithDispatches | null)[] = [];
  for (const [index, claimer] of batch.claimers.entries()) {
    const row = mine[index] ?? queued.shift();
    claimed.push(row ? await claimRow(store, row, claimer, batch) : null);
  }
  return claimed;
}

/** Writes one claim of `row` (SQLite), through the same guarded change as every other. */
async function claimRow(store: WorkStore, row: WorkItemRow, claimer: Claimer, batch: ClaimBatch): Promise<ItemWithDispatches> {
  const claimed: WorkItemRow = {
    ...row,
    status: claimer.status,
    assigned_agent: claimer.agent,
    attempts: claimStartsAttempt(row) ? row.attempts + 1 : row.attempts,
    lease_s: claimer.lease_s,
    lease_expires_at: claimer.lease_expires_at,
    run_after: null,
    version: row.version + 1,
    updated_at: batch.now,
  };
  const { id, ...set } = claimed;
  const opened: DispatchRow | undefined =
    row.status === 'queued'
      ? { id: claimer.dispatch_id, work_item_id: id, agent: claimer.agent, dispatched_at: batch.now, completed_at: null, outcome: null, reason: null }
      : undefined;
  const { actor } = claimer;
  await store.applyChange({
    id,
    from_version: row.version,
    set,
    ...(opened && { openDispatch: opened }),
    event: { type: batch.event_type, data: eventData(claimed, actor), at: batch.now },
    history: {
      at: batch.now,
      actor: actor.name,
      role: actor.role,
      action: 'claimed',
      changes: JSON.stringify({
        status: { from: row.status, to: claimed.status },
        assigned_agent: { from: row.assigned_agent, to: claimed.assigned_agent },
        attempts: { from: row.attempts, to: claimed.attempts },
        lease_expires_at: { from: row.lease_expires_at, to: claimed.lease_expires_at },
      }),
    },
  });
  return { row: claimed, dispatches: await store.listDispatches(id) };
}

/** Work items the claim may consider, by its type and project filters. */
export function claimable(db: Executor, query: Pick<ClaimBatch, 'types' | 'project_id'>) {
  let selected = db.selectFrom('work_items');
  if (query.types) selected = selected.where('type', 'in', query.types);
  if (query.project_id) selected = selected.where('project_id', '=', query.project_id);
  return selected;
}
