import { type Principal, isPerson } from '../auth/index.js';
import {
  decodeCursorParts,
  encodeCursorParts,
  invalidCursor,
  isListedId,
  isListedTime,
} from '../shared/http/paging.js';
import { toSummary } from '../work/index.js';
import { describeMatch } from './highlight.js';
import { parseQuery } from './query.js';
import { SEARCH_PAGE, type SearchQuery, type SearchResult } from './schemas.js';
import type { Needer, SearchAfter, SearchOrder, SearchStore } from './store/port.js';

// Search: the query parsed, one page read from the store, each hit described (where it
// matched, its passage). Every role that reads may list every item, so search shows them all.

export interface SearchPage {
  results: SearchResult[];
  next_cursor: string | null;
}

export interface SearchService {
  search(query: SearchQuery, principal: Principal | null): Promise<SearchPage>;
}

const isPlace = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function decodeAfter(cursor: string, order: SearchOrder): SearchAfter {
  const [sort, rank, created_at, id, floor, ceiling, shown, older] = decodeCursorParts(cursor, 8);
  if (sort !== order || typeof rank !== 'number' || !Number.isFinite(rank)) throw invalidCursor();
  if (!isListedTime(created_at) || !isListedId(id)) throw invalidCursor();
  if (!isPlace(floor) || !isPlace(ceiling) || !isPlace(shown) || !(older === null || isPlace(older))) {
    throw invalidCursor();
  }
  return { rank, created_at, id, floor, ceiling, shown, older };
}

/** Whom is:needs-me asks about: a person, or an agent (its questions to @creator); viewers answer nothing. */
function personOf(principal: Principal | null): Needer | null {
  if (principal === null) return null;
  if (isPerson(principal)) return { name: principal.agent ?? principal.name, agent: false };
  return principal.role === 'agent' ? { name: principal.name, agent: true } : null;
}

export function createSearchService(store: SearchStore): SearchService {
  return {
    async search(query, principal) {
      const parsed = parseQuery(query.q);
      const order = query.sort ?? 'relevance';
      const limit = query.limit ?? SEARCH_PAGE.default;
      const after = query.cursor === undefined ? null : decodeAfter(query.cursor, order);
      const { hits, floor, ceiling } = await store.search({
        query: parsed,
        person: personOf(principal),
        order,
        after,
        limit: limit + 1,
      });
      const page = hits.slice(0, limit);
      const sources = await store.sources(page.map((hit) => hit.row.id));
      const last = page.at(-1);
      const shown = (after?.shown ?? 0) + page.filter((hit) => hit.older === null).length;
      return {
        results: page.map(({ row }) => ({ item: toSummary(row), ...describeMatch(row, sources, parsed.include) })),
        next_cursor:
          hits.length > limit && last
            ? encodeCursorParts([order, last.rank, last.row.created_at, last.row.id, floor, ceiling, shown, last.older])
            : null,
      };
    },
  };
}
