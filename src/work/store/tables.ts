import type { Generated } from 'kysely';
import type { DispatchReason, Outcome, WorkStatus } from '../api-contract.js';

// Columns mirror the API's snake_case names; only `payload` differs (JSON text in the row).

export interface WorkItemRow {
  id: string;
  type: string;
  description: string;
  priority: number;
  status: WorkStatus;
  assigned_agent: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  outcome: Outcome | null;
  notes: string | null;
  payload: string | null;
  project_id: string | null;
  /** Incremented by every change: the ETag, and the guard of every conditional write. */
  version: number;
  attempts: number;
  max_attempts: number;
  retry_delay_s: number;
  run_after: string | null;
  lease_expires_at: string | null;
  /** The length of the current lease (kept while blocked pauses it); null when none is held. */
  lease_s: number | null;
  /** Comments on the item, kept by the comment writes (src/conversation), never counted per read. */
  comment_count: number;
  /** 1 or 0 (one shape on both databases); null: the project's setting. */
  review_required: number | null;
  /** The item this one is a part of; null for a top-level item. */
  parent_id: string | null;
  /**
   * How many of its dependencies are not completed (work_dependencies): kept in the same
   * transaction as every change that moves it; only an item at 0 is claimable.
   */
  waiting_on: number;
  /**
   * Moves when the item gains or loses a dependent (never shown): its end is guarded on it, so a
   * dependent added meanwhile is counted without moving `version` under its holder's If-Match.
   */
  link_version: number;
  /** 1 for a plan's parent: never claimable, completed by the desk when its steps are (settle.ts). */
  container: number;
  /** The people told of its questions and reviews, as a JSON array of names; null: none. */
  watchers: string | null;
}

export interface DispatchRow {
  id: string;
  work_item_id: string;
  agent: string;
  dispatched_at: string;
  completed_at: string | null;
  outcome: Outcome | null;
  reason: DispatchReason | null;
}

export interface HistoryRow {
  id: Generated<number>;
  work_item_id: string;
  at: string;
  actor: string;
  role: string;
  action: string;
  changes: string;
}

/** A history entry about to be written: the item and the id come from the write itself. */
export type NewHistory = Omit<HistoryRow, 'id' | 'work_item_id'>;

export interface IdempotencyRow {
  scope: string;
  idempotency_key: string;
  request_hash: string;
  response_status: number;
  response_body: string;
  created_at: string;
}

export interface ProjectRow {
  id: string;
  name: string;
  name_key: string;
  external_ref: string | null;
  created_at: string;
  /** 1 or 0: whether the holder's completion of the project's items waits for a person's review. */
  review_required: number;
  /** JSON arrays of names (people); null: none. */
  watchers: string | null;
  escalate_to: string | null;
  /** How long a question or review may stay open before it is overdue; null: never. */
  answer_within_s: number | null;
}

export interface EventRow {
  id: Generated<number>;
  type: string;
  data: string;
  created_at: string;
}

/** `item_id` waits for `depends_on_id` to complete. */
export interface DependencyRow {
  item_id: string;
  depends_on_id: string;
}

export interface WorkTables {
  work_items: WorkItemRow;
  dispatch_log: DispatchRow;
  projects: ProjectRow;
  events: EventRow;
  idempotency_keys: IdempotencyRow;
  work_history: HistoryRow;
  work_dependencies: DependencyRow;
}

declare module '../../shared/db/schema.js' {
  interface DatabaseSchema extends WorkTables {}
}
