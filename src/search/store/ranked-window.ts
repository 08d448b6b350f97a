import type { SearchHit, SearchHits, SearchPageRequest } from './port.js';

// Ranking every match of a common word scores a share of the whole desk before a page is cut,
// so relevance ranks a window of the newest matches and reads the older ones by place.

/** How many items a text may match and still be ranked whole; also how many newest items the window holds. */
export const RANKED_WINDOW = 2_000;

/**
 * A text found in this share of the window's items is common without counting its older matches:
 * counting them is what costs, since a GIN index has no order to stop early in.
 */
const COMMON_SHARE = 1 / 20;

/** A store's statements for the window. A place is an item's position in the store's index (newer: higher). */
export interface WindowStatements {
  /** How many items placed after `above` the text matches, counting no further than `cap`. */
  countMatches(request: SearchPageRequest, cap: number, above: number): Promise<number>;
  /** The newest place in the index; 0 when it is empty. */
  lastPlace(): Promise<number>;
  /** The matches placed in (floor, ceiling], by rank, after the request's `after` (its limit). */
  ranked(request: SearchPageRequest, floor: number, ceiling: number): Promise<SearchHit[]>;
  /** Up to `limit` matches placed in (above, upTo], newest placed first, each with its place. */
  older(request: SearchPageRequest, upTo: number, above: number, limit: number): Promise<SearchHit[]>;
}

/**
 * A page by relevance of a query with text. When the text matches more items than `size`, or a
 * twentieth of the newest `size` items indexed, only its matches among those newest are ranked;
 * older matches follow, newest indexed first, read in ranges of the index that grow fourfold
 * until the page is full, so each statement reads a bounded number of rows. The first page fixes the places ranked: items
 * indexed while a reader pages are not among them and cannot move the pages already read.
 */
export async function pageByRelevance(
  statements: WindowStatements,
  request: SearchPageRequest,
  size: number,
): Promise<SearchHits> {
  const { after, limit } = request;
  let floor = after?.floor ?? 0;
  let ceiling = after?.ceiling ?? 0;
  if (after === null) {
    ceiling = await statements.lastPlace();
    const newest = Math.max(0, ceiling - size);
    const common = Math.ceil(size * COMMON_SHARE);
    if (newest > 0 && (await statements.countMatches(request, common, newest)) >= common) {
      floor = newest;
    } else {
      const matches = await statements.countMatches(request, size + 1, 0);
      // Nothing matches: the ranked statement would only check every item holding a phrase's words again.
      if (matches === 0) return { hits: [], floor, ceiling };
      if (matches > size) floor = newest;
    }
  }
  const hits = after === null || after.older === null ? await statements.ranked(request, floor, ceiling) : [];
  let upTo = after?.older == null ? floor : after.older - 1;
  for (let span = size; hits.length < limit && upTo > 0; span *= 4) {
    const above = Math.max(0, upTo - span);
    hits.push(...(await statements.older(request, upTo, above, limit - hits.length)));
    upTo = above;
  }
  return { hits, floor, ceiling };
}
