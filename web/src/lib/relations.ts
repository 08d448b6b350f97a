import type { Blocker, ChildCounts, WorkItemDetail, WorkItemSummary } from '../../../src/work/api-contract.ts';

// An item's place in a plan: its parent, its children, what it waits on. GET
// /work/{id} answers them all (WorkItemDetail); a list's rows and live events carry only
// parent_id and waiting_on, so the rest reads as empty for them.

export type { Blocker, ChildCounts };

export interface Relations {
  parent_id: string | null;
  depends_on: string[];
  blocked_by: Blocker[];
  children: ChildCounts;
}

export const NO_CHILDREN: ChildCounts = { total: 0, queued: 0, active: 0, completed: 0, failed: 0, cancelled: 0 };

export function relationsOf(item: WorkItemSummary & Partial<WorkItemDetail>): Relations {
  return {
    parent_id: item.parent_id,
    depends_on: item.depends_on ?? [],
    blocked_by: item.blocked_by ?? [],
    children: item.children ?? NO_CHILDREN,
  };
}

/**
 * How many unfinished dependencies hold a queued item back; 0 when it does not wait (or is not
 * queued: a dependency only holds back a claim).
 */
export function waitingOn(item: Pick<WorkItemSummary, 'status' | 'waiting_on'>): number {
  return item.status === 'queued' ? item.waiting_on : 0;
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
