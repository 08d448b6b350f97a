import type { UnitOfWork } from '../../shared/db/schema.js';
import type { ClaimableNews } from '../agent-loop/claimable.js';
import { isFinal } from '../items/lifecycle.js';
import type { DispatchReason, Outcome, SortOrder, WorkStatus } from '../api-contract.js';
import type { DispatchRow, IdempotencyRow, NewHistory, ProjectRow, WorkItemRow } from './tables.js';
import type { DependencyStatements, DependentsEffect } from './dependencies-port.js';

// The one interface of the work store: what the work service asks of its database. No rule of the
// lifecycle is written here or below: the service plans every change (change-rules.ts, changes.ts,
// claim-writes.ts) and the store writes what it is given.

export interface HistoryEntryRow extends NewHistory {
  id: number;
  work_item_id: string;
}

export interface WorkFilter {
  statuses?: WorkStatus[];
  agent?: string;
  project_id?: string;
  /** Normalized ISO 8601 UTC; items created strictly after it. */
  since?: string;
  /** Normalized ISO 8601 UTC; items changed strictly after it. */
  updated_since?: string;
  type?: string;
  created_by?: string;
  parent_id?: string;
  /** Claimable at `now` (queued, due, waiting on nothing), or not. */
  ready?: { now: string; ready: boolean };
}

/** Where the previous page ended, in the sort order of the listing. */
export interface PagePosition {
  created_at: string;
  id: string;
  priority: number;
}

export interface NewEvent {
  type: string;
  data: string;
  at: string;
}

export interface ItemWithDispatches {
  row: WorkItemRow;
  /** The item's dispatch log, in no set order (view.ts orders it for the API). */
  dispatches: DispatchRow[];
}

/** A new item and everything its creation writes: its first dispatch (if any), history and event. */
export interface NewItem {
  row: WorkItemRow;
  dispatch: DispatchRow | null;
  event: NewEvent;
  history: NewHistory;
}

/**
 * One change to an item, computed by the service from the row at `from_version`: it is written
 * only if the item is still at that version, so a read and this write are as good as a lock.
 */
export interface ItemChange {
  id: string;
  from_version: number;
  /** The new values; always includes `version` and `updated_at`. */
  set: Partial<Omit<WorkItemRow, 'id'>>;
  /** Closes the open dispatch entry, if there is one. */
  closeDispatch?: { at: string; outcome: Outcome; reason: DispatchReason };
  openDispatch?: DispatchRow;
  event: NewEvent;
  history: NewHistory;
  /** What the change does to the items that depend on this one (it reached a final status). */
  dependents?: DependentsEffect;
  /** With `dependents`: written only if the item's link_version is still this (tables.ts). */
  from_link_version?: number;
  /** What the change makes claimable, for the commit's signal (claimable.ts); never written. */
  wakes?: ClaimableNews;
  /**
   * Filled in by the store when it writes the change: the dependents its completion left
   * waiting on nothing (queued, now claimable or due later), which the commit's signal wakes
   * claims for. Only the statement knows them.
   */
  released?: ReleasedItem[];
}

/** A dependent a completion released: what a waiting claim matches it by. */
export type ReleasedItem = Pick<WorkItemRow, 'type' | 'project_id' | 'run_after'>;

/** What a claim may take: items of these types and this project, due at `now`. */
export interface ClaimQuery {
  types: string[] | null;
  project_id: string | null;
  now: string;
}

/**
 * What a batch of claimers may take, as the database stands: for each agent (in the order
 * asked) its own oldest dispatched item, and the head of the queue, in queue order, as long as
 * the number of agents that have none of their own. Nothing is locked: the claim's write is the
 * guarded change, and a claimer that lost a race reads again.
 */
export interface ClaimCandidates {
  own: (ItemWithDispatches | null)[];
  queued: ItemWithDispatches[];
}

/**
 * The SQL of the work service on one connection or one open transaction. Two complete
 * implementations speak it, one per database (sqlite.ts, postgres.ts), each plain SQL.
 */
export interface WorkStatements extends DependencyStatements {
  /** New items written together: one statement per table (per slice) rather than four per item. */
  createWorkItems(items: readonly NewItem[]): Promise<void>;
  findWorkItem(id: string): Promise<WorkItemRow | undefined>;
  /** Items with their logs, one answer per id (undefined for a missing one). */
  findManyWithDispatches(ids: readonly string[]): Promise<(ItemWithDispatches | undefined)[]>;
  /**
   * Writes each change whose item is still at its `from_version`, with its dispatch entries,
   * history row and event; answers which were written. No item twice. A change that closes a
   * dispatch entry and opens the next takes two statements: atomic only inside a transaction.
   */
  applyChanges(changes: readonly ItemChange[]): Promise<boolean[]>;
  /** Deletes the item if it exists (and, with a version, only at that version). */
  deleteWorkItem(id: string, version: number | null, event: NewEvent): Promise<boolean>;
  listWorkItems(
    filter: WorkFilter,
    order: SortOrder,
    after: PagePosition | null,
    limit: number,
  ): Promise<WorkItemRow[]>;
  countByStatus(filter: Omit<WorkFilter, 'statuses'>): Promise<Partial<Record<WorkStatus, number>>>;

  claimCandidates(query: ClaimQuery, agents: readonly string[]): Promise<ClaimCandidates>;
  /** The earliest future `run_after` of a queued item the claim could take, or null. */
  nextRunAfter(query: ClaimQuery): Promise<string | null>;
  /** The queued items whose `run_after` falls in (`after`, `upTo`], counted per type and project. */
  cameDue(after: string, upTo: string): Promise<{ type: string; project_id: string | null; count: number }[]>;
  /** Items whose lease ran out at or before `now`, soonest first. */
  expiredLeases(now: string, limit: number): Promise<WorkItemRow[]>;

  listDispatches(workItemId: string): Promise<DispatchRow[]>;
  /** The item's audit trail, oldest first. */
  listHistory(workItemId: string): Promise<HistoryEntryRow[]>;

  insertProject(row: ProjectRow): Promise<void>;
  findProject(id: string): Promise<ProjectRow | undefined>;
  /** Reads a project and holds it against concurrent writers until the transaction ends. */
  lockProject(id: string): Promise<ProjectRow | undefined>;
  listProjects(): Promise<ProjectRow[]>;
  updateProject(id: string, changes: Partial<Omit<ProjectRow, 'id' | 'created_at'>>): Promise<void>;

  /**
   * Appends to the event log. Ids are increasing but, on PostgreSQL, may become visible out of
   * order: the event hub holds at a gap (hub.ts), and reads the log through events/store/.
   */
  appendEvent(type: string, data: string, at: string): Promise<number>;
  /**
   * Holds the idempotency key against other instances until the transaction ends; false when
   * another request holds it. PostgreSQL: an advisory lock; SQLite: always true (one writer).
   */
  tryLockIdempotencyKey(scope: string, key: string): Promise<boolean>;
  findIdempotencyKey(scope: string, key: string): Promise<IdempotencyRow | undefined>;
  /** Stores the first response for a key, replacing an expired record of the same key. */
  saveIdempotencyKey(row: IdempotencyRow): Promise<void>;
  purgeIdempotencyKeysBefore(at: string): Promise<number>;
}

/**
 * The store the service uses: the statements, each write atomic on its own, and transactions.
 * `onEventsCommitted` (given to createWorkStore) runs after every commit that appended events,
 * with what the commit made claimable (claimable.ts). The decorators that make it (transactional.ts,
 * and batched.ts on PostgreSQL) decide what runs in a transaction and what runs together as one statement.
 */
export interface WorkStore extends WorkStatements {
  /**
   * `trx` is the open transaction itself, for a feature that writes its own tables in the same
   * commit as a work item (mail intake, through src/intake/work-port.ts).
   */
  transaction<T>(work: (store: WorkStore, trx: UnitOfWork) => Promise<T>): Promise<T>;
  /**
   * Runs `work` (reads, then writes guarded by the versions it read) holding no lock: only each
   * statement is promised atomic, so `work` must be correct without a transaction around it.
   * SQLite runs it in one group-commit transaction; PostgreSQL statement by statement (batched.ts).
   */
  optimistic<T>(work: (store: WorkStore) => Promise<T>): Promise<T>;
  /** One new item, atomically. */
  createWorkItem(row: WorkItemRow, dispatch: DispatchRow | null, event: NewEvent, history: NewHistory): Promise<void>;
  findWithDispatches(id: string): Promise<ItemWithDispatches | undefined>;
  /** Writes `change` if the item is still at `from_version`; false when it is gone or has moved on. */
  applyChange(change: ItemChange): Promise<boolean>;
}

/** Told after each commit that appended events, with what it made claimable. */
export type CommitListener = (news: ClaimableNews) => void;

/** An item a change brought to a final status, and who did it. */
export interface FinishedItem {
  id: string;
  status: WorkStatus;
  at: string;
  actor: string;
  role: string;
}

/**
 * Runs inside the transaction of every change that brought items to a final status, after the
 * change (src/conversation closes their open questions, in the same commit); answers what to
 * run once the transaction has committed, if anything.
 */
export type FinishedHook = (
  store: WorkStore,
  trx: UnitOfWork,
  finished: readonly FinishedItem[],
) => Promise<(() => void) | void>;

/** True when the change brings its item to a final status. */
export function finishes(change: ItemChange): boolean {
  return change.set.status !== undefined && isFinal(change.set.status);
}

export const EVENTS_CHANNEL = 'agentdesk_events';

/**
 * What decides whether changes can be one statement: the columns they set and the log entries
 * they touch (postgres.ts writes a batch of one shape as one statement; batched.ts gathers them).
 */
export function changeShape(change: ItemChange): string {
  return `${Object.keys(change.set).join(',')}|${change.closeDispatch ? 'close' : ''}|${change.openDispatch ? 'open' : ''}|${change.dependents?.kind ?? ''}`;
}
