import { isForeignKeyViolation } from '../../shared/db/database.js';
import { ValidationError } from '../../shared/errors.js';
import { FINAL_STATUSES } from './dependency-rules.js';
import { WaitingOnDependencies } from '../errors.js';
import {
  type Blocker,
  type ChildCounts,
  LINK_LIMITS,
  type WorkItem,
  type WorkItemDetail,
  type WorkStatus,
} from '../api-contract.js';
import type { LinkRow } from '../store/dependencies-port.js';
import type { WorkStatements, WorkStore } from '../store/port.js';
import type { DependencyRow, WorkItemRow } from '../store/tables.js';

// Sub-items and dependencies: the checks of a new parent or a new list of dependencies, and what
// an item shows of its plan.

/** What a submit or a PATCH asks of an item's links; undefined fields stay as they are. */
export interface LinkRequest {
  parent_id?: string | null | undefined;
  depends_on?: string[] | undefined;
}

export function asksForLinks(request: LinkRequest): boolean {
  return request.parent_id !== undefined || request.depends_on !== undefined;
}

/** The links of an item as they are (null for an item being created). */
export interface CurrentLinks {
  id: string;
  parent_id: string | null;
  depends_on: string[];
}

/** What checking the links decided: the columns to set, the edges to write, the blockers. */
export interface CheckedLinks {
  set: Partial<Pick<WorkItemRow, 'parent_id' | 'waiting_on'>>;
  add: DependencyRow[];
  remove: string[];
  /** The requested dependencies not yet completed (the item's blocked_by once written). */
  blockers: Blocker[];
  /**
   * What the audit row says of the dependencies when the list changed: `depends_on` is no column
   * of the item, so the history's field-by-field comparison (describeChanges) cannot see it.
   */
  details?: { depends_on: { from: string[]; to: string[] } };
}

/** What the caller knows beyond the request. */
export interface LinkContext {
  /**
   * Items created earlier in this same transaction (a plan's steps): no other request can see
   * them, so none can complete meanwhile, and they are not held.
   */
  fresh?: ReadonlySet<string>;
  /** Counted in waiting_on beyond the dependencies: 1 for a plan's parent (settle.ts). */
  hold?: number;
}

/**
 * Checks the requested links of item `id` (`current` null: the item is new) and takes the
 * dependencies' side of the race with their completion: every dependency gained or lost that is
 * not final, and not new in this transaction, is held (touchItems) until the commit.
 * Runs inside the transaction that writes the link, after lockGraph, so the graph checked is the
 * graph written: no two changes can each pass the cycle check and together close a cycle, and a
 * dependency that completes meanwhile is either seen as completed or counted by its completion
 * (touchItems moves a hidden link_version, not the version a holder's If-Match names).
 */
export async function checkLinks(
  tx: WorkStatements,
  id: string,
  current: CurrentLinks | null,
  request: LinkRequest,
  context: LinkContext = {},
): Promise<CheckedLinks> {
  // A new item has no dependents, so its dependencies cannot close a cycle: only a parent (its
  // limits) or a change of an existing item needs the graph to hold still. Submitting a plan's
  // steps then runs in parallel.
  if (current !== null || (request.parent_id !== undefined && request.parent_id !== null)) await tx.lockGraph();
  const checked: CheckedLinks = { set: {}, add: [], remove: [], blockers: [] };
  if (request.parent_id !== undefined && request.parent_id !== (current?.parent_id ?? null)) {
    if (request.parent_id !== null) await checkParent(tx, id, current !== null, request.parent_id);
    checked.set.parent_id = request.parent_id;
  }
  if (request.depends_on === undefined) return checked;

  const wanted = request.depends_on.map((dep) => dep.toLowerCase());
  const repeated = wanted.filter((dep, index) => wanted.indexOf(dep) !== index);
  if (repeated.length > 0)
    throw ValidationError.of('depends_on', `lists ${[...new Set(repeated)].join(', ')} more than once`);
  if (wanted.includes(id.toLowerCase()))
    throw ValidationError.of('depends_on', `lists the item itself (${id}): an item cannot depend on itself`);
  const found = new Map((await tx.findLinks(wanted)).map((row) => [row.id.toLowerCase(), row]));
  const unknown = wanted.filter((dep) => !found.has(dep));
  if (unknown.length > 0)
    throw ValidationError.of(
      'depends_on',
      `${unknown.join(', ')} ${unknown.length === 1 ? 'is not the id' : 'are not ids'} of existing work items`,
    );
  const before = new Set((current?.depends_on ?? []).map((dep) => dep.toLowerCase()));
  const gained = wanted.filter((dep) => !before.has(dep));
  // A new item has no dependents yet: only a change of an existing one can close a cycle.
  if (current !== null && gained.length > 0) await checkNoCycle(tx, id.toLowerCase(), gained);

  const lost = [...before].filter((dep) => !wanted.includes(dep));
  // Every dependency kept, gained or lost that is not final is held until the commit: one
  // completing now either ends before this reads it or is counted after this writes. Nothing a
  // client sees of it moves (no version, no event): depending on an item is not changing it.
  const fresh = new Set([...(context.fresh ?? [])].map((dep) => dep.toLowerCase()));
  const touched = await tx.touchItems(
    [...wanted, ...lost].filter((dep) => !fresh.has(dep)),
    FINAL_STATUSES,
  );
  for (const row of touched) found.set(row.id.toLowerCase(), row);
  // The others are final, and stay so, or new here; read again, as one may have ended since.
  const held = new Set([...touched.map((row) => row.id.toLowerCase()), ...fresh]);
  for (const row of await tx.findLinks(wanted.filter((dep) => !held.has(dep)))) found.set(row.id.toLowerCase(), row);
  checked.blockers = wanted
    .map((dep) => found.get(dep)!)
    .filter((row) => row.status !== 'completed')
    .map(toBlocker);
  checked.set.waiting_on = checked.blockers.length + (context.hold ?? 0);
  checked.add = gained.map((dep) => ({ item_id: id, depends_on_id: found.get(dep)!.id }));
  checked.remove = lost;
  if (current !== null && (gained.length > 0 || lost.length > 0)) {
    // Sorted: the list is a set, and the same set should read the same in every row.
    const from = [...current.depends_on].sort();
    const to = wanted.map((dep) => found.get(dep)!.id).sort();
    checked.details = { depends_on: { from, to } };
  }
  return checked;
}

function toBlocker(row: Pick<LinkRow, 'id' | 'status' | 'description'>): Blocker {
  return { id: row.id, status: row.status, description: row.description };
}

/**
 * Refuses a dependency list that would close a cycle: walks the graph from each gained
 * dependency along what it depends on, and names the path that leads back to the item.
 */
async function checkNoCycle(tx: WorkStatements, id: string, gained: readonly string[]): Promise<void> {
  const cameFrom = new Map<string, string>(gained.map((dep) => [dep, id]));
  let frontier = [...gained];
  while (frontier.length > 0) {
    const edges = await tx.listEdges(frontier);
    frontier = [];
    for (const edge of edges) {
      const from = edge.item_id.toLowerCase();
      const to = edge.depends_on_id.toLowerCase();
      if (to === id) {
        const path = [id];
        for (let at: string | undefined = from; at !== undefined && at !== id; at = cameFrom.get(at)) path.unshift(at);
        path.unshift(id);
        throw ValidationError.of('depends_on', `would close a cycle: ${path.join(' → ')} (each depends on the next)`);
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, from);
        frontier.push(to);
      }
    }
  }
}

/** The parent exists, is not the item nor one of its descendants, has room, and is not too deep. */
async function checkParent(tx: WorkStatements, id: string, exists: boolean, parentId: string): Promise<void> {
  const self = id.toLowerCase();
  if (parentId.toLowerCase() === self)
    throw ValidationError.of('parent_id', 'is the item itself: an item cannot be its own parent');
  // The parent's ancestors, the parent first; one more than the limit is enough to refuse.
  const chain: LinkRow[] = [];
  for (let next: string | null = parentId; next !== null && chain.length <= LINK_LIMITS.depth;) {
    const [row] = await tx.findLinks([next]);
    if (!row) {
      if (chain.length === 0)
        throw ValidationError.of('parent_id', `${parentId} is not the id of an existing work item`);
      break;
    }
    if (row.id.toLowerCase() === self)
      throw ValidationError.of(
        'parent_id',
        `${parentId} is part of this item: an item cannot be nested in its own sub-items`,
      );
    chain.push(row);
    next = row.parent_id;
  }
  const height = exists ? await subtreeHeight(tx, id) : 1;
  if (chain.length + height > LINK_LIMITS.depth) {
    throw ValidationError.of(
      'parent_id',
      `would nest items ${chain.length + height} levels deep; at most ${LINK_LIMITS.depth} levels are allowed`,
    );
  }
  const counts = await tx.countChildrenByStatus(parentId);
  const children = Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
  if (children >= LINK_LIMITS.children) {
    throw ValidationError.of(
      'parent_id',
      `${parentId} already has ${children} children; an item has at most ${LINK_LIMITS.children}`,
    );
  }
}

/** Levels in the tree below and including `id` (1: no children), counted up to one past the limit. */
async function subtreeHeight(tx: WorkStatements, id: string): Promise<number> {
  let level = [id];
  let height = 0;
  while (level.length > 0 && height <= LINK_LIMITS.depth) {
    height += 1;
    level = (await tx.listChildren(level)).map((row) => row.id);
  }
  return height;
}

/** The unfinished dependencies of `id`, for a refusal to dispatch it. */
export async function namedWaiting(
  store: WorkStatements,
  error: WaitingOnDependencies,
): Promise<WaitingOnDependencies> {
  if (error.unfinished !== null) return error;
  const deps = await store.listDependencies(error.itemId);
  return new WaitingOnDependencies(error.itemId, deps.filter((dep) => dep.status !== 'completed').map(toBlocker));
}

/** An item as GET /work/{id} shows it: with what it depends on, what blocks it, and its children. */
export async function withPlan(store: WorkStatements, item: WorkItem): Promise<WorkItemDetail> {
  const [deps, counts] = await Promise.all([store.listDependencies(item.id), store.countChildrenByStatus(item.id)]);
  return {
    ...item,
    depends_on: deps.map((dep) => dep.id),
    blocked_by: deps.filter((dep) => dep.status !== 'completed').map(toBlocker),
    children: childCounts(counts),
  };
}

export function childCounts(counts: Partial<Record<WorkStatus, number>>): ChildCounts {
  const n = (status: WorkStatus) => counts[status] ?? 0;
  const active = n('dispatched') + n('in_progress') + n('blocked');
  return {
    total: n('queued') + active + n('completed') + n('failed') + n('cancelled'),
    queued: n('queued'),
    active,
    completed: n('completed'),
    failed: n('failed'),
    cancelled: n('cancelled'),
  };
}

/** What keeps an item from being deleted: the items that depend on it, and its children. */
export async function linksHolding(
  store: WorkStatements,
  id: string,
): Promise<{ dependents: string[]; children: number }> {
  const [dependents, counts] = await Promise.all([
    store.listDependents(id, LINK_LIMITS.dependencies),
    store.countChildrenByStatus(id),
  ]);
  return { dependents, children: childCounts(counts).total };
}

/** Writes the edges a check decided, in the caller's transaction. */
export async function writeEdges(tx: WorkStore, id: string, checked: CheckedLinks): Promise<void> {
  await tx.deleteEdges(id, checked.remove);
  try {
    await tx.insertEdges(checked.add);
  } catch (error) {
    // A final dependency is not held by the check: one deleted since is gone by now.
    if (isForeignKeyViolation(error))
      throw ValidationError.of('depends_on', 'names an item that was deleted while this request ran');
    throw error;
  }
}
