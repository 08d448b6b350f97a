import type { WorkItemSummary, WorkStatus } from '../../../src/work/schemas.ts';

// An item's place in a plan (issue 22): its parent, its children, what it waits on. The item
// answer carries them (parent_id, depends_on, blocked_by, children); a list's rows carry what
// the service puts in a summary, so each reader here takes a field that is missing as empty.

export interface Blocker {
  id: string;
  status: WorkStatus;
  description: string;
}

export interface ChildCounts {
  total: number;
  queued: number;
  active: number;
  completed: number;
  failed: number;
  cancelled: number;
}

export interface Relations {
  parent_id: string | null;
  depends_on: string[];
  blocked_by: Blocker[];
  children: ChildCounts;
}

export const NO_CHILDREN: ChildCounts = { total: 0, queued: 0, active: 0, completed: 0, failed: 0, cancelled: 0 };

export function relationsOf(item: WorkItemSummary): Relations {
  const r = item as Partial<Relations>;
  return {
    parent_id: r.parent_id ?? null,
    depends_on: r.depends_on ?? [],
    blocked_by: r.blocked_by ?? [],
    children: r.children ?? NO_CHILDREN,
  };
}

/**
 * How many unfinished dependencies hold a queued item back; 0 when it does not wait (or is not
 * queued: a dependency only holds back a claim).
 */
export function waitingOn(item: WorkItemSummary): number {
  if (item.status !== 'queued') return 0;
  const r = item as Partial<Relations> & { waiting_on?: number };
  if (typeof r.waiting_on === 'number') return r.waiting_on;
  return r.blocked_by?.length ?? 0;
}

/** Whether any of the dependencies still holding the item back has failed or was cancelled. */
export function stuck(item: WorkItemSummary): boolean {
  return relationsOf(item).blocked_by.some((b) => b.status === 'failed' || b.status === 'cancelled');
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A work item id typed or pasted (an item page's address too), lower-cased; null if none. */
export function itemIdIn(text: string): string | null {
  const trimmed = text.trim();
  if (ID.test(trimmed)) return trimmed.toLowerCase();
  const inAddress = /items\/([0-9a-f-]{36})/i.exec(trimmed)?.[1];
  return inAddress && ID.test(inAddress) ? inAddress.toLowerCase() : null;
}
