import { ItemChanged, WorkItemNotFound } from './errors.js';
import { type Actor, eventData, toWorkItem } from './item-view.js';
import type { WorkItem } from './schemas.js';
import type { ItemChange, ItemWithDispatches, WorkStore } from './store.js';
import type { DispatchRow, WorkItemRow } from './tables.js';

// Every change to an existing item goes through `changeItem`: read the item, let the caller's
// rule decide what changes, and write that only if the item is still at the version read. A lost
// race is retried from a fresh read, unless the caller sent If-Match, whose promise it broke.
// Two round trips, no lock held across them, and the same on both stores.

export const WORK_EVENTS = {
  created: 'work.created',
  updated: 'work.updated',
  deleted: 'work.deleted',
} as const;

/** What a rule decides: the new values, and what happens to the dispatch log. Null: nothing to do. */
export interface Plan {
  /** What the audit trail calls this change: the move's name, `edited`, `heartbeat`, `lease_expired`. */
  action: string;
  set: Partial<Omit<WorkItemRow, 'id' | 'version' | 'updated_at'>>;
  closeDispatch?: ItemChange['closeDispatch'];
  openDispatch?: DispatchRow;
}

/** The versions an If-Match header accepts: any (`*`) or a list. */
export type VersionPrecondition = { any: true } | { any: false; versions: number[] };

export function checkPrecondition(row: WorkItemRow, precondition: VersionPrecondition | undefined): void {
  if (!precondition || precondition.any) return;
  if (!precondition.versions.includes(row.version)) throw new ItemChanged(row.version, row.status);
}

const MAX_TRIES = 20;

export async function changeItem(
  store: WorkStore,
  id: string,
  at: () => string,
  precondition: VersionPrecondition | undefined,
  actor: Actor,
  rule: (current: ItemWithDispatches, now: string) => Plan | null,
  /** Told the row as it was and the plan that was written, once it committed. */
  onApplied?: (before: WorkItemRow, plan: Plan) => void,
): Promise<WorkItem> {
  for (let attempt = 1; ; attempt += 1) {
    const current = await store.findWithDispatches(id);
    if (!current) throw new WorkItemNotFound(id);
    checkPrecondition(current.row, precondition);
    const now = at();
    const plan = rule(current, now);
    if (!plan) return toWorkItem(current.row, current.dispatches);

    const row: WorkItemRow = { ...current.row, ...plan.set, version: current.row.version + 1, updated_at: now };
    const change: ItemChange = {
      id,
      from_version: current.row.version,
      set: { ...plan.set, version: row.version, updated_at: now },
      ...(plan.closeDispatch && { closeDispatch: plan.closeDispatch }),
      ...(plan.openDispatch && { openDispatch: plan.openDispatch }),
      event: { type: WORK_EVENTS.updated, data: eventData(row, actor), at: now },
      history: { at: now, actor: actor.name, role: actor.role, action: plan.action, changes: describeChanges(current.row, plan.set) },
    };
    if (await store.applyChange(change)) {
      onApplied?.(current.row, plan);
      return toWorkItem(row, dispatchesAfter(current.dispatches, change));
    }
    if (attempt >= MAX_TRIES) throw new Error(`work item ${id} kept changing under ${MAX_TRIES} attempts to change it`);
  }
}

function dispatchesAfter(dispatches: readonly DispatchRow[], change: ItemChange): DispatchRow[] {
  const closing = change.closeDispatch;
  const updated = dispatches.map((entry) =>
    closing && entry.completed_at === null
      ? { ...entry, completed_at: closing.at, outcome: closing.outcome, reason: closing.reason }
      : entry,
  );
  if (change.openDispatch) updated.push(change.openDispatch);
  return updated;
}

/**
 * What changed, field by field, for the audit trail. The payload is only marked as edited: it
 * can be 64 KB, and the item itself holds its current value.
 */
export function describeChanges(before: WorkItemRow, set: Plan['set']): string {
  const changes: Record<string, unknown> = {};
  for (const [field, to] of Object.entries(set) as [keyof WorkItemRow, unknown][]) {
    const from = before[field];
    if (from === to) continue;
    changes[field] = field === 'payload' ? { edited: true } : { from, to };
  }
  return JSON.stringify(changes);
}
