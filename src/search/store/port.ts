import type { WorkItemRow } from '../../work/index.js';
import type { ParsedQuery } from '../query.js';

// The search's storage port: one page of items matching a parsed query, filters and text in one
// statement, and the texts of a page's items that the highlight is cut from.

export const SEARCH_ORDERS = ['relevance', 'newest'] as const;
export type SearchOrder = (typeof SEARCH_ORDERS)[number];

/** Where the previous page ended: its last hit's rank (higher is better), time and id. */
export interface SearchAfter {
  rank: number;
  created_at: string;
  id: string;
}

/**
 * The caller `is:needs-me` is about, by name: a person is told of questions as notify says; an
 * agent answers only a question to `@creator` of an item it created, so only that needs it.
 */
export interface Needer {
  name: string;
  agent: boolean;
}

export interface SearchPageRequest {
  query: ParsedQuery;
  /** Whom `is:needs-me` is about; null: the caller answers nothing, so nothing needs it. */
  person: Needer | null;
  order: SearchOrder;
  after: SearchAfter | null;
  limit: number;
}

export interface SearchHit {
  row: WorkItemRow;
  rank: number;
}

export interface SearchSources {
  comments: { work_item_id: string; kind: string; body: string }[];
  questions: { work_item_id: string; question: string; answer: string | null }[];
  mails: { work_item_id: string; subject: string | null; sender: string | null }[];
}

export interface SearchStore {
  search(request: SearchPageRequest): Promise<SearchHit[]>;
  sources(itemIds: readonly string[]): Promise<SearchSources>;
}
