import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WorkStatus } from '../api-contract.js';
import type { DependencyRow, WorkItemRow } from './tables.js';

// What the work service asks of the database about plans: parents, children and the dependency
// graph. SQL only: which link is allowed, and what a dependency's end does to its dependents, is
// decided by the service (dependencies.ts, dependency-rules.ts).

/** What the link checks read of an item. */
export interface LinkRow {
  id: string;
  status: WorkStatus;
  description: string;
  parent_id: string | null;
}

/**
 * Part of every WorkStatements (port.ts), so it runs on the connection or transaction the store
 * was made on: the checks and the writes of a link share the commit of the item they concern.
 */
export interface DependencyStatements {
  /**
   * Serializes the writers of links until the transaction ends, so two changes cannot each
   * pass the cycle check and together close a cycle. PostgreSQL: an advisory lock; SQLite:
   * nothing (one writer).
   */
  lockGraph(): Promise<void>;
  /** The items among `ids` that exist, in no set order. */
  findLinks(ids: readonly string[]): Promise<LinkRow[]>;
  /**
   * Moves on the `link_version` of the items among `ids` whose status is not in `unless`, and
   * answers them as they now are (their version, what a client sees, stays). A dependency's end,
   * guarded on it, and a change of who depends on it then cannot cross: the one that comes second
   * is computed again from the other's result.
   */
  touchItems(ids: readonly string[], unless: readonly WorkStatus[]): Promise<WorkItemRow[]>;
  /** The dependencies of each of `itemIds` (their outgoing edges). */
  listEdges(itemIds: readonly string[]): Promise<DependencyRow[]>;
  /** The items that depend on `id`, oldest first, at most `limit`. */
  listDependents(id: string, limit: number): Promise<string[]>;
  /** The children of the items `parentIds`. */
  listChildren(parentIds: readonly string[]): Promise<Pick<LinkRow, 'id' | 'parent_id'>[]>;
  countChildrenByStatus(parentId: string): Promise<Partial<Record<WorkStatus, number>>>;
  /** The dependencies of `itemId` with their status, oldest first. */
  listDependencies(itemId: string): Promise<Pick<LinkRow, 'id' | 'status' | 'description'>[]>;
  insertEdges(edges: readonly DependencyRow[]): Promise<void>;
  /**
   * Plans' parents still queued whose children all completed and that wait on nothing but
   * themselves (`hold`), at most `limit`: what a sweep settles (settle.ts decides).
   */
  plansToSettle(hold: number, limit: number): Promise<string[]>;
  deleteEdges(itemId: string, dependsOnIds: readonly string[]): Promise<void>;
}

/**
 * What an item's reaching a final status does to the items that depend on it, carried by the
 * change (port.ts ItemChange) and written in its statement: `release` counts one dependency
 * less on each (the dependency completed); `note` posts the note as a comment (kind `note`, by
 * `actor`) on the timeline of each one not in a status of `unless` (it failed or was cancelled). Either way each dependent moves to a new version,
 * with an `event` (work.updated) by `actor`.
 */
export type DependentsEffect = { event: string; actor: { name: string; role: string } } & (
  { kind: 'release' } | { kind: 'note'; note: string; unless: readonly WorkStatus[] }
);

/** One dependent's note, as `note` effects leave it on the dependent's timeline. */
export interface DependentNote {
  work_item_id: string;
  author: string;
  role: string;
  body: string;
  created_at: string;
}

/**
 * The timeline a `note` effect writes to belongs to the conversation (src/conversation), which
 * alone writes its tables: the work store asks it for the write, in the change's own commit.
 */
export interface DependentNotes {
  /** SQLite: writes one dependent's note on `db`, the unit of work of the change. */
  insert(db: DatabaseHandle, note: DependentNote): Promise<void>;
  /**
   * PostgreSQL: the data-modifying statement, for a CTE of the change's statement, that writes
   * a note on each row of `touched` (the dependents as updated: `id`, `updated_at`) joined on
   * `item_id` to `dependents` (its `note` column), by the author and role of `actor` (a JSON
   * object of the statement with `name` and `role`).
   */
  insertAllSql(sources: { touched: string; dependents: string; actor: string }): string;
}
