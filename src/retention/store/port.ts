import type { DispatchRow, HistoryEntryRow, WorkItemRow } from '../../work/index.js';
import type { CommentRow, QuestionRow } from '../../conversation/index.js';

// What retention asks of the database: the lease of the one pass, the items it may remove, their
// rows, and their removal; restore writes the rows back. No rule of which item may go lives here.

/** Everything an item owns that the archive keeps, as stored. */
export interface ItemRows {
  item: WorkItemRow;
  dispatches: DispatchRow[];
  history: HistoryEntryRow[];
  comments: CommentRow[];
  questions: QuestionRow[];
  /** The items it waited on (work_dependencies). */
  dependsOn: string[];
}

/** Where an unfinished batch began: its archive file and the file's size before the batch. */
export interface BatchStart {
  file: string;
  offset: number;
}

export type LeaseAnswer = { taken: false } | { taken: true; unfinished: BatchStart | null };

export interface RetentionStore {
  /** Takes the pass's lease if nobody holds it, it ran out, or `holder` has it; with the batch a crash left. */
  takeLease(holder: string, now: string, until: string): Promise<LeaseAnswer>;
  /** Records where the next batch begins (null: not in a file) and extends the lease; false: the lease is lost. */
  startBatch(holder: string, start: BatchStart | null, until: string): Promise<boolean>;
  releaseLease(holder: string): Promise<void>;
  /** Final items last changed before `before` that nothing holds, oldest change first. */
  removable(before: string, limit: number): Promise<string[]>;
  readItems(ids: readonly string[]): Promise<ItemRows[]>;
  /**
   * In one transaction: removes each item still at its version that nothing holds yet, and ends
   * the batch in the ledger. Null when the lease is lost (nothing removed).
   */
  removeItems(holder: string, items: readonly { id: string; version: number }[]): Promise<number | null>;
  /** When the final item changed longest ago last changed; null: none. */
  oldestFinal(): Promise<string | null>;
  /**
   * Writes an item back with what it owns; false when its id exists (nothing written). Its parent
   * and the items it waited on are left to `relink`, as they may come later in an archive.
   */
  restoreItem(rows: ItemRows): Promise<boolean>;
  /** Sets the parent, and the dependencies whose items exist; answers how many links were made. */
  relink(id: string, parentId: string | null, dependsOn: readonly string[]): Promise<number>;
}
