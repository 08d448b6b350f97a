import type { WorkItemRow } from '../../work/index.js';
import type { ParsedQuery } from '../query.js';

// The search's storage port: one page of items matching a parsed query, filters and text in one
// statement, and the texts of a page's items that the highlight is cut from.

export const SEARCH_ORDERS = ['relevance', 'newest'] as const;
export type SearchOrder = (typeof SEARCH_ORDERS)[number];

/**
 * Where the previous page ended: its last hit's rank (higher is better), time and id. By
 * relevance with text, also what the first page fixed (the places ranked: above `floor`, up to
 * `ceiling`), how many ranked hits the pages before showed, and once past the ranked matches the
 * last hit's place in the index (`older`).
 */
export interface SearchAfter {
  rank: number;
  created_at: string;
  id: string;
  floor: number;
  ceiling: number;
  shown: number;
  older: number | null;
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
  /** The item's place in the index when it follows the ranked matches (see RankedWindow); else null. */
  older: number | null;
}

/** A page of hits, and the places ranked that the next pages keep (see SearchAfter). */
export interface SearchHits {
  hits: SearchHit[];
  floor: number;
  ceiling: number;
}

export interface SearchSources {
  comments: { work_item_id: string; kind: string; body: string }[];
  questions: { work_item_id: string; question: string; answer: string | null }[];
  mails: { work_item_id: string; subject: string | null; sender: string | null }[];
}

export interface SearchStore {
  search(request: SearchPageRequest): Promise<SearchHits>;
  sources(itemIds: readonly string[]): Promise<SearchSources>;
}
