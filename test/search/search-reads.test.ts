import { existsSync, readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, type RawBuilder, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { sqlitePath } from '../../src/shared/db/database.js';
import { parseQuery } from '../../src/search/query.js';
import type { SearchPageRequest } from '../../src/search/store/port.js';
import { sqliteOlderQuery, sqliteSearchStore } from '../../src/search/store/sqlite.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// A plan names the rowid bounds FTS5 was offered, not whether it used them: FTS5 seeks only to
// an INTEGER bound (a JS number reaches SQLite as a REAL), and without a prefix index it merges
// every word that starts with a stem first. Linux counts the bytes a thread reads from files.

const ITEMS = 80_000;
const canCountReads = existsSync('/proc/thread-self/io');
const bytesRead = () => Number(/rchar:\s*(\d+)/.exec(readFileSync('/proc/thread-self/io', 'utf8'))?.[1]);

const request = (q: string): SearchPageRequest => ({
  query: parseQuery(q),
  person: null,
  order: 'relevance',
  after: null,
  limit: 26,
});

describe.skipIf(!canCountReads || !(await storesUnderTest()).includes('sqlite'))(
  'what a search statement reads on SQLite',
  () => {
    let test: TestDatabase;
    let database: Database;

    beforeAll(async () => {
      test = await createTestDatabase('sqlite', { statementTimeoutMs: 120_000 });
      database = await openTestDatabase(test);
      // Each item holds the word five times, so its doclist outweighs what any statement reads besides.
      await database.kysely.executeQuery(
        CompiledQuery.raw(`WITH RECURSIVE n(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < ${ITEMS})
           INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
           SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' ||
             substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))), 'bench',
             'Weekly report ' || n || ', weekly numbers, weekly notes, weekly plans, weekly', 3, 'queued', 'ann',
             strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-01', '+' || n || ' seconds'), '2026-11-01T00:00:00.000Z'
           FROM n`),
      );
    }, 120_000);

    afterAll(async () => {
      await database?.close();
      await test?.destroy();
    });

    /** The bytes a statement reads from the database's files, on a new connection with nothing cached. */
    const readBy = (query: RawBuilder<unknown> | string): number => {
      const { sql, parameters } =
        typeof query === 'string' ? { sql: query, parameters: [] } : query.compile(database.kysely);
      const connection = new BetterSqlite3(sqlitePath(test.config.url), { readonly: true });
      try {
        const statement = connection.prepare(sql);
        const before = bytesRead();
        statement.all(...parameters);
        return bytesRead() - before;
      } finally {
        connection.close();
      }
    };

    /** The bytes a first page by relevance reads, through the store, on a new connection. */
    const pageReads = async (q: string): Promise<number> => {
      const connection = new BetterSqlite3(sqlitePath(test.config.url), { readonly: true });
      const kysely = new Kysely<never>({ dialect: new SqliteDialect({ database: connection }) });
      try {
        const before = bytesRead();
        const { hits } = await sqliteSearchStore(kysely as unknown as Database['kysely']).search(request(q));
        expect(hits).toHaveLength(26);
        return bytesRead() - before;
      } finally {
        await kysely.destroy();
      }
    };

    it('ranks a common word among the newest items without reading its older matches', async () => {
      // bm25 walks the matches of the query's one phrase, the stem's prefix, before it ranks.
      const phraseWalk = readBy(`SELECT count(*) FROM search_fts WHERE search_fts MATCH '"week"*'`);
      const page = await pageReads('weekly');
      // The same page ranked in the whole index: its floor is set above every document for a moment.
      const floor = await sql<{ floor: number }>`SELECT floor FROM search_recent_floor`.execute(database.kysely);
      await sql`UPDATE search_recent_floor SET floor = ${ITEMS + 1}`.execute(database.kysely);
      const wholeIndex = await pageReads('weekly').finally(() =>
        sql`UPDATE search_recent_floor SET floor = ${floor.rows[0]!.floor}`.execute(database.kysely),
      );
      if (process.env.SHOW_PLANS) console.log({ phraseWalk, page, wholeIndex });
      expect(wholeIndex - page).toBeGreaterThan(phraseWalk / 2);
    });

    it("reads a range of older matches from its own part of a common word's matches", () => {
      const everyMatch = readBy(`SELECT count(*) FROM search_fts WHERE search_fts MATCH 'weekly OR week*'`);
      const older = readBy(sqliteOlderQuery(request('weekly'), 20_000, 10_000, 26));
      if (process.env.SHOW_PLANS) console.log({ everyMatch, older });
      expect(older).toBeLessThan(everyMatch / 2);
    });
  },
);
