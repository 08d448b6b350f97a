import type { SearchQuery, SearchResult } from '../search/contract.js';
import type { CallOptions, Requester } from './http.js';

// The typed client's search: GET /search, one page of results and the cursor of the next.

export interface SearchResultsPage {
  results: SearchResult[];
  next_cursor: string | null;
}

export function searchCalls(request: Requester, nextCursor: (link: string | null) => string | null) {
  return {
    /** Items matching `q` (docs/search.md), best first or newest first (`sort`). */
    async search(query: SearchQuery, call: CallOptions = {}): Promise<SearchResultsPage> {
      const answer = await request<SearchResult[]>('GET', '/search', { query, ...call });
      return { results: answer.body, next_cursor: nextCursor(answer.headers.get('link')) };
    },
  };
}
