import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/search/query.js';
import type { SearchPageRequest } from '../../src/search/store/port.js';
import { type WindowStatements, pageByRelevance } from '../../src/search/store/ranked-window.js';

// The window's order of statements, over statements that answer from a list of places and record
// what they were asked; the stores' own statements are tried through HTTP in ranked-window.test.ts.

const request: SearchPageRequest = {
  query: parseQuery('"weekly report"'),
  person: null,
  order: 'relevance',
  after: null,
  limit: 10,
};

function statementsOver(places: number[], last: number) {
  const asked: string[] = [];
  const statements: WindowStatements = {
    countMatches: async (_request, cap) => (asked.push('count'), Math.min(cap, places.length)),
    lastPlace: async () => (asked.push('last place'), last),
    ranked: async (_request, floor, ceiling) => {
      asked.push(`ranked (${floor}, ${ceiling}]`);
      return [];
    },
    older: async (_request, upTo, above) => {
      asked.push(`older (${above}, ${upTo}]`);
      return [];
    },
  };
  return { asked, statements };
}

describe('a page by relevance', () => {
  it('asks nothing more once the text matches nothing', async () => {
    const { asked, statements } = statementsOver([], 5_000);
    expect(await pageByRelevance(statements, request, 100)).toEqual({ hits: [], floor: 0, ceiling: 5_000 });
    expect(asked).toEqual(['last place', 'count']);
  });

  it('ranks a text of few matches whole, and a common one in the window before the older ranges', async () => {
    const few = statementsOver([7, 4_000], 5_000);
    await pageByRelevance(few.statements, request, 100);
    expect(few.asked).toEqual(['last place', 'count', 'ranked (0, 5000]']);
    const common = statementsOver(
      Array.from({ length: 500 }, (_, n) => n * 10),
      5_000,
    );
    await pageByRelevance(common.statements, request, 100);
    expect(common.asked).toEqual([
      'last place',
      'count',
      'ranked (4900, 5000]',
      'older (4800, 4900]',
      'older (4400, 4800]',
      'older (2800, 4400]',
      'older (0, 2800]',
    ]);
  });
});
