import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/search/query.js';
import type { SearchPageRequest } from '../../src/search/store/port.js';
import { type WindowStatements, pageByRelevance } from '../../src/search/store/ranked-window.js';

// The window's order of statements, over statements that count from a list of places and record
// what they were asked; the stores' own statements are tried through HTTP in ranked-window.test.ts.

const request: SearchPageRequest = {
  query: parseQuery('"weekly report"'),
  person: null,
  order: 'relevance',
  after: null,
  limit: 10,
};

/** A window of 100 at a desk whose last place is 5,000; a twentieth of it is 5. */
async function askedFor(places: number[]): Promise<string[]> {
  const asked: string[] = [];
  const statements: WindowStatements = {
    countMatches: async (_request, cap, above) => {
      asked.push(`count after ${above}`);
      return Math.min(cap, places.filter((place) => place > above).length);
    },
    lastPlace: async () => (asked.push('last place'), 5_000),
    ranked: async (_request, floor, ceiling) => (asked.push(`ranked (${floor}, ${ceiling}]`), []),
    older: async (_request, upTo, above) => (asked.push(`older (${above}, ${upTo}]`), []),
  };
  await pageByRelevance(statements, request, 100);
  return asked;
}

const OLDER_RANGES = ['older (4800, 4900]', 'older (4400, 4800]', 'older (2800, 4400]', 'older (0, 2800]'];

describe('a page by relevance', () => {
  it('asks nothing more once the text matches nothing', async () => {
    expect(await askedFor([])).toEqual(['last place', 'count after 4900', 'count after 0']);
  });

  it('ranks a text of few matches whole', async () => {
    expect(await askedFor([7, 4_000, 4_990])).toEqual([
      'last place',
      'count after 4900',
      'count after 0',
      'ranked (0, 5000]',
    ]);
  });

  it('ranks a text of more matches than the window holds in the window, then reads older ranges', async () => {
    const places = Array.from({ length: 200 }, (_, n) => n * 20);
    expect(await askedFor(places)).toEqual([
      'last place',
      'count after 4900',
      'count after 0',
      'ranked (4900, 5000]',
      ...OLDER_RANGES,
    ]);
  });

  it('takes a text found in a twentieth of the window for common without counting further', async () => {
    expect(await askedFor([10, 4_910, 4_920, 4_930, 4_940, 4_950])).toEqual([
      'last place',
      'count after 4900',
      'ranked (4900, 5000]',
      ...OLDER_RANGES,
    ]);
  });
});
