import { claimableAfter } from '../agent-loop/claimable.js';
import { dependentsEffectOf } from '../plans/dependency-rules.js';
import { ItemChanged, WorkItemNotFound } from '../errors.js';
import { type Actor, eventData, namesOf, toWorkItem } from './view.js';
import type { WorkItem } from '../api-contract.js';
import type { ItemChange, ItemWithDispatches, WorkStore } from '../store/port.js';
import type { DispatchRow, WorkItemRow } from '../store/tables.js';

// Every change to an existing item goes through `changeItem`: read the item, let the caller's rule
// decide what changes, and write that only if the item is still at the version read.

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
  /** The fields the audit row names, changed or not (the claim's four); default: those that changed. */
  audit?: readonly (keyof WorkItemRow)[];
  /** What the audit row says beyond the fields (the conversation's: the question, the comment deleted). */
  details?: Record<string, unknown>;
}

/** The versions an If-Match header accepts: any (`*`) or a list. */
export type VersionPrecondition = { any: true } | { any: false; versions: number[]; malformed?: true };

export function checkPrecondition(row: WorkItemRow, precondition: VersionPrecondition | undefined): void {
  if (!precondition || precondition.any) return;
  if (!precondition.versions.includes(row.version))
    throw new ItemChanged(row.version, row.status, precondition.malformed === true);
}

const MAX_TRIES = 20;

/** How many recently written items a process keeps, and the largest payload worth keeping. */
const RECENT_ITEMS = 512;
const RECENT_PAYLOAD_CHARS = 4_096;

/**
 * The items this process wrote last, as it wrote them: a change can start from this copy instead
 * of a read (the agent that claimed an item completes it next). The copy is only a guess: the
 * write is guarded by the version it carries, and every change to an item moves its version
 * (claims, changes, deletes, on any instance), so a write that lands proves the copy was current.
 * A stale copy costs one failed write and a read, as a lost race does. Each copy is used once.
 */
export type RecentItems = ReturnType<typeof createRecentItems>;

export function createRecentItems(capacity = RECENT_ITEMS) {
  const items = new Map<string, ItemWithDispatches>();
  return {
    remember(item: ItemWithDispatches): void {
      const key = item.row.id.toLowerCase();
      items.delete(key);
      if ((item.row.payload?.length ?? 0) > RECENT_PAYLOAD_CHARS) return;
      items.set(key, item);
      // A Map iterates in insertion order: the first key is the oldest.
      if (items.size > capacity) items.delete(items.keys().next().value as string);
    },
    take(id: string): ItemWithDispatches | undefined {
      const key = id.toLowerCase();
      const item = items.get(key);
      items.delete(key);
      return item;
    },
  };
}

export interface ChangeHooks {
  /** Told the row as it was and the plan that was written, once it committed (the metrics). */
  onApplied?: (before: WorkItemRow, plan: Plan) => void;
  /** Items this process wrote last: the change starts from the copy, guarded by its version. */
  recent?: RecentItems;
}

/**
 * A lost race is retried from a fresh read, unless the caller sent If-Match, whose promise it
 * broke. Two round trips, no lock held across them, and the same on both stores.
 */
export async function changeItem(
  store: WorkStore,
  id: string,
  at: () => string,
  precondition: VersionPrecondition | undefined,
  /** Who changes it; a function when that depends on the item (a caller acting as its holder). */
  actor: Actor | ((row: WorkItemRow) => Actor),
  rule: (current: ItemWithDispatches, now: string) => Plan | null,
  /** The change's companions: who is told once it committed, and the copies a change may start from. */
  hooks: ChangeHooks = {},
): Promise<WorkItem> {
  for (let attempt = 1; ; attempt += 1) {
    const copy = attempt === 1 ? hooks.recent?.take(id) : undefined;
    const current = copy ?? (await store.findWithDispatches(id));
    if (!current) throw new WorkItemNotFound(id);
    const now = at();
    let plan: Plan | null;
    try {
      checkPrecondition(current.row, precondition);
      plan = rule(current, now);
    } catch (error) {
      // A copy may be stale: only the item as it is now may refuse the change.
      if (copy) continue;
      throw error;
    }
    if (!plan) {
      if (copy) continue;
      return toWorkItem(current.row, current.dispatches);
    }

    const { change, after } = writeOf(current, plan, typeof actor === 'function' ? actor(current.row) : actor, now);
    if (await store.applyChange(change)) {
      hooks.recent?.remember(after);
      hooks.onApplied?.(current.row, plan);
      return toWorkItem(after.row, after.dispatches);
    }
    if (attempt >= MAX_TRIES) throw new Error(`work item ${id} kept changing under ${MAX_TRIES} attempts to change it`);
  }
}

/**
 * The one way a plan becomes a write: the guarded change (the new values, the dispatch entries,
 * the history row, the event) and the item as it is once the change is written.
 */
export function writeOf(
  current: ItemWithDispatches,
  plan: Plan,
  actor: Actor,
  now: string,
): { change: ItemChange; after: ItemWithDispatches } {
  const row: WorkItemRow = { ...current.row, ...plan.set, version: current.row.version + 1, updated_at: now };
  const dependents = dependentsEffectOf(current.row, plan.set.status, WORK_EVENTS.updated);
  const change: ItemChange = {
    id: current.row.id,
    from_version: current.row.version,
    set: { ...plan.set, version: row.version, updated_at: now },
    ...(plan.closeDispatch && { closeDispatch: plan.closeDispatch }),
    ...(plan.openDispatch && { openDispatch: plan.openDispatch }),
    ...(dependents && { dependents, from_link_version: current.row.link_version }),
    event: { type: WORK_EVENTS.updated, data: eventData(row, actor), at: now },
    history: {
      at: now,
      actor: actor.name,
      role: actor.role,
      action: plan.action,
      changes: withDetails(describeChanges(current.row, plan.set, plan.audit), plan.details),
    },
  };
  // A claim hands its item to the claimer itself: no one else is to be woken for it.
  const wakes = plan.action === 'claimed' ? null : claimableAfter(current.row, row, now);
  if (wakes) change.wakes = wakes;
  // The dependents it releases are named by the store once written (ItemChange.released).
  return { change, after: { row, dispatches: dispatchesAfter(current.dispatches, change) } };
}

function withDetails(changes: string, details: Plan['details']): string {
  return details ? JSON.stringify({ ...(JSON.parse(changes) as object), ...details }) : changes;
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
export function describeChanges(before: WorkItemRow, set: Plan['set'], audit?: Plan['audit']): string {
  const changes: Record<string, unknown> = {};
  if (audit) {
    for (const field of audit)
      changes[field] = { from: before[field], to: field in set ? set[field as keyof Plan['set']] : before[field] };
    return JSON.stringify(changes);
  }
  for (const [field, to] of Object.entries(set) as [keyof WorkItemRow, unknown][]) {
    const from = before[field];
    if (from === to) continue;
    if (field === 'payload') changes[field] = { edited: true };
    // A list of names is JSON text in its column; the trail shows the lists as the item does.
    else if (field === 'watchers')
      changes[field] = { from: namesOf(from as string | null), to: namesOf(to as string | null) };
    else changes[field] = { from, to };
  }
  return JSON.stringify(changes);
}
