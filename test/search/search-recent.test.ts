import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { parseQuery } from '../../src/search/query.js';
import type { SearchAfter, SearchPageRequest } from '../../src/search/store/port.js';
import { sqliteSearchStore } from '../../src/search/store/sqlite.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// SQLite ranks the window in search_recent, an index of the newest 8,000 to 9,000 documents only
// (migration 038): what each write leaves in it, and a reader whose window has fallen below it
// while items arrived, who is then ranked from the whole index and still loses nothing.

/** Past this many above the floor, the oldest thousand leave. */
const MOST = 9_000;
const ITEMS = MOST + 100;

/** Items `from`..`to`, oldest first, each holding `word`, through the table the triggers watch. */
function itemsSql(from: number, to: number, word: string): string {
  return `WITH RECURSIVE n(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM n WHERE n < ${to})
    INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
    SELECT printf('00000000-0000-4000-a000-%012d', n), 'bench', '${word} number ' || n, 3, 'queued', 'ann',
      strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-01', '+' || n || ' seconds'), '2026-11-01T00:00:00.000Z'
    FROM n`;
}

const itemId = (n: number) => `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`;

describe.skipIf(!(await storesUnderTest()).includes('sqlite'))('the newest documents on SQLite', () => {
  let test: TestDatabase;
  let database: Database;
  const run = (text: string) => database.kysely.executeQuery(CompiledQuery.raw(text));
  const count = async (index: string, match: string) =>
    Number(
      (
        await sql<{
          n: number;
        }>`SELECT count(*) AS n FROM ${sql.raw(index)} WHERE ${sql.raw(index)} MATCH ${match}`.execute(database.kysely)
      ).rows[0]!.n,
    );
  const recentRange = async () =>
    (
      await sql<{ n: number; low: number; high: number; floor: number }>`SELECT count(*) AS n, min(rowid) AS low,
        max(rowid) AS high, (SELECT floor FROM search_recent_floor) AS floor FROM search_recent`.execute(
        database.kysely,
      )
    ).rows[0]!;

  beforeAll(async () => {
    test = await createTestDatabase('sqlite', { statementTimeoutMs: 120_000 });
    database = await openTestDatabase(test);
    await run(itemsSql(1, ITEMS, 'ledger'));
  }, 120_000);

  afterAll(async () => {
    await database?.close();
    await test?.destroy();
  });

  it('holds the documents above the floor, and the oldest thousand leave together', async () => {
    expect(await recentRange()).toEqual({ n: ITEMS - 1000, low: 1001, high: ITEMS, floor: 1000 });
    await run(itemsSql(ITEMS + 1, ITEMS + 1, 'ledger'));
    expect(await recentRange()).toEqual({ n: ITEMS - 999, low: 1001, high: ITEMS + 1, floor: 1000 });
    expect(await count('search_fts', 'ledger')).toBe(ITEMS + 1);
    expect(await count('search_recent', 'ledger')).toBe(ITEMS - 999);
  });

  it("follows a newer item's comments and edits, and leaves an older item's to the whole index", async () => {
    const recent = itemId(ITEMS - 100);
    const old = itemId(50);
    await run(`INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
      VALUES ('c-new', '${recent}', 'ann', 'member', 'note', 'a quokka came', '[]', '2026-11-02T00:00:00.000Z'),
             ('c-old', '${old}', 'ann', 'member', 'note', 'a quokka left', '[]', '2026-11-02T00:00:00.000Z')`);
    expect(await count('search_fts', 'quokka')).toBe(2);
    expect(await count('search_recent', 'quokka')).toBe(1);
    await run(`UPDATE work_items SET description = 'wombat burrow' WHERE id IN ('${recent}', '${old}')`);
    expect(await count('search_recent', 'wombat')).toBe(1);
    expect(await count('search_recent', 'quokka')).toBe(1);
    await run(`DELETE FROM work_comments WHERE id = 'c-new'`);
    expect(await count('search_recent', 'quokka')).toBe(0);
    expect(await count('search_fts', 'quokka')).toBe(1);
    expect((await recentRange()).n).toBe(ITEMS - 999);
  });

  it('drops a deleted item, and the floor stays where it was when the newest is deleted', async () => {
    const before = await recentRange();
    await run(`DELETE FROM work_items WHERE id = '${itemId(ITEMS + 1)}'`);
    expect(await recentRange()).toEqual({ ...before, n: before.n - 1, high: ITEMS });
    // The next item is given the deleted one's number; nothing below the floor comes back.
    await run(itemsSql(ITEMS + 2, ITEMS + 2, 'ledger'));
    expect(await recentRange()).toEqual(before);
  });

  it('pages a common word to its end while more than the index holds arrive between pages', async () => {
    const store = sqliteSearchStore(database.kysely, 2_000);
    const request = (after: SearchPageRequest['after']): SearchPageRequest => ({
      query: parseQuery('ledger'),
      person: null,
      order: 'relevance',
      after,
      limit: 500,
    });
    const first = await store.search(request(null));
    const seen = first.hits.map((hit) => hit.row.id);
    const expected = Number(await count('search_fts', 'ledger'));
    // The window the first page fixed is now below search_recent's floor.
    await run(itemsSql(ITEMS + 3, ITEMS + 3 + MOST, 'ledger'));
    expect((await recentRange()).floor).toBeGreaterThan(first.floor);
    let after: SearchAfter | null = null;
    let last = first;
    while (last.hits.length === 500) {
      const hit = last.hits.at(-1)!;
      const shownBefore: number = after === null ? 0 : (after as SearchAfter).shown;
      after = {
        rank: hit.rank,
        created_at: hit.row.created_at,
        id: hit.row.id,
        floor: last.floor,
        ceiling: last.ceiling,
        shown: shownBefore + last.hits.filter((shown) => shown.older === null).length,
        older: hit.older,
      };
      last = await store.search(request(after));
      seen.push(...last.hits.map((next) => next.row.id));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(expected);
  }, 120_000);
});
