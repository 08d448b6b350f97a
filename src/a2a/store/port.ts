import type { A2aContextRow, A2aPushRow } from './tables.js';

// A2A's storage port: which context each task sent over A2A belongs to, and a caller's tasks of
// one context a page at a time, newest first; the push notification configs of each task.

/** Where the previous page ended. */
export interface ContextAfter {
  created_at: string;
  item_id: string;
}

export interface ContextPageRequest {
  context_id: string;
  /** The caller's tasks only; null for an admin, who sees every caller's. */
  created_by: string | null;
  after: ContextAfter | null;
  limit: number;
}

export interface A2aStore {
  /** Records the task's context; a second write for the same item keeps the first. */
  link(row: A2aContextRow): Promise<void>;
  /** The contexts of the items given that have one. */
  contextsOf(itemIds: readonly string[]): Promise<Map<string, string>>;
  contextPage(request: ContextPageRequest): Promise<A2aContextRow[]>;

  insertPush(row: A2aPushRow): Promise<void>;
  findPush(taskId: string, id: string): Promise<A2aPushRow | undefined>;
  /** A task's configs, oldest first. */
  listPush(taskId: string): Promise<A2aPushRow[]>;
  /** The config an endpoint sends for. */
  pushOfEndpoint(endpointId: string): Promise<A2aPushRow | undefined>;
  /** The endpoints of configs whose task ended (a final status) before `before`, up to `limit`. */
  endedPushEndpoints(before: string, limit: number): Promise<string[]>;
}
