import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { parseQuery } from '../../src/search/query.js';
import type { SearchPageRequest } from '../../src/search/store/port.js';
import { SEARCH_PLANNER_SETTINGS, postgresOlderQuery, postgresSearchQuery } from '../../src/search/store/postgres.js';
import { sqliteOlderQuery, sqliteSearchQuery } from '../../src/search/store/sqlite.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// GET /search's statement as each planner sees a desk of common words after ANALYZE: a rare
// word is looked up in the full-text index (FTS5's, the GIN), never found by reading every item.

const ITEMS = 20_000;

const request = (q: string): SearchPageRequest => ({
  query: parseQuery(q),
  person: { name: 'mia', agent: false },
  order: 'relevance',
  after: null,
  limit: 26,
});

describe.each(await storesUnderTest())('search plans on %s', (kind) => {
  let test: TestDatabase;
  let database: Database;

  const plan = async (q: string, statement: 'page' | 'window' | 'older' = 'page'): Promise<string> => {
    const query =
      statement === 'older'
        ? (kind === 'postgres' ? postgresOlderQuery : sqliteOlderQuery)(request(q), 12_000, 10_000, 26)
        : (kind === 'postgres' ? postgresSearchQuery : sqliteSearchQuery)(
            request(q),
            ...(statement === 'window' ? ([18_000, ITEMS] as const) : ([] as const)),
          );
    const compiled = query.compile(database.kysely);
    const prefix = kind === 'postgres' ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
    const { rows } = await database.kysely.executeQuery(
      CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]),
    );
    return rows.map((row) => Object.values(row as object).join(' ')).join('\n');
  };

  beforeAll(async () => {
    // Seeding through the triggers takes longer than a request may; one connection keeps the SETs.
    test = await createTestDatabase(kind, { statementTimeoutMs: 120_000, poolSize: 1 });
    database = await openTestDatabase(test);
    const seed =
      kind === 'postgres'
        ? `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
           SELECT gen_random_uuid(), 'bench', 'Prepare the weekly report ' || n || CASE WHEN n = 777 THEN ' xylograph' ELSE '' END,
             3, 'queued', 'ann', timestamptz '2026-11-01T00:00:00Z' + n * interval '1 second', timestamptz '2026-11-01T00:00:00Z'
           FROM generate_series(1, ${ITEMS}) AS n`
        : `WITH RECURSIVE n(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < ${ITEMS})
           INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
           SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' ||
             substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))), 'bench',
             'Prepare the weekly report ' || n || CASE WHEN n = 777 THEN ' xylograph' ELSE '' END, 3, 'queued', 'ann',
             strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-01', '+' || n || ' seconds'), '2026-11-01T00:00:00.000Z'
           FROM n`;
    await database.kysely.executeQuery(CompiledQuery.raw(seed));
    // On PostgreSQL a bare ANALYZE would reach every test's schema in the shared database, and
    // the plan tests that run before any statistics exist would then have some.
    await database.kysely.executeQuery(
      CompiledQuery.raw(
        kind === 'postgres'
          ? `DO $$ DECLARE t text; BEGIN
               FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
                 EXECUTE format('ANALYZE %I', t);
               END LOOP;
             END $$`
          : 'ANALYZE',
      ),
    );
    // As the store plans its search (its transaction sets these), on a host where parallel
    // workers cost nothing to start: the planner would then take them for any scan.
    if (kind === 'postgres') {
      for (const setting of ['parallel_setup_cost', 'parallel_tuple_cost', 'min_parallel_index_scan_size']) {
        await database.kysely.executeQuery(CompiledQuery.raw(`SET ${setting} = 0`));
      }
      await database.kysely.executeQuery(CompiledQuery.raw('SET min_parallel_table_scan_size = 0'));
      for (const [name, value] of SEARCH_PLANNER_SETTINGS) {
        await database.kysely.executeQuery(CompiledQuery.raw(`SET ${name} = ${value}`));
      }
    }
  }, 120_000);

  afterAll(async () => {
    await database?.close();
    await test?.destroy();
  });

  it('looks a rare word up in the full-text index', async () => {
    const found = await plan('xylograph');
    if (kind === 'postgres') {
      expect(found).toMatch(/Bitmap Index Scan on work_search_doc/);
      expect(found).not.toMatch(/Seq Scan on work_search/);
    } else {
      expect(found).toMatch(/VIRTUAL TABLE INDEX \d+:M/);
      expect(found).not.toMatch(/SCAN w\b/);
    }
  });

  it.runIf(kind === 'postgres')('starts no parallel workers for a rare word or a common one', async () => {
    expect(await plan('xylograph')).not.toMatch(/Gather/);
    expect(await plan('weekly report')).not.toMatch(/Gather/);
  });

  it('with a filter, still starts from the index', async () => {
    const found = await plan('xylograph type:bench priority:3');
    expect(found).toMatch(kind === 'postgres' ? /work_search_doc/ : /VIRTUAL TABLE INDEX \d+:M/);
  });

  it('ranks a common word only in the window of newest places', async () => {
    const found = await plan('weekly report', 'window');
    if (process.env.SHOW_PLANS) console.log(found);
    if (kind === 'postgres') {
      expect(found).toMatch(/Index Cond: \(\(seq > .*\(seq <= |Bitmap Index Scan on work_search_seq/);
      expect(found).not.toMatch(/Seq Scan on work_search/);
    } else {
      // FTS5's plan names the rowid bounds it was given (`>` and `<`) beside the MATCH.
      expect(found).toMatch(/VIRTUAL TABLE INDEX \d+:M\d*[<>]{2}/);
      expect(found).not.toMatch(/SCAN w\b/);
    }
  });

  it('reads older matches from a range of places', async () => {
    const found = await plan('weekly report status:queued', 'older');
    if (process.env.SHOW_PLANS) console.log(found);
    if (kind === 'postgres') {
      expect(found).toMatch(/work_search_seq/);
      expect(found).not.toMatch(/Seq Scan/);
    } else {
      expect(found).toMatch(/SCAN search_fts VIRTUAL TABLE INDEX \d+:M\d*[<>]{2}/);
      expect(found).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('starts is:needs-me from the open questions, never from every item', async () => {
    const found = await plan('is:needs-me');
    if (process.env.SHOW_PLANS) console.log(found);
    if (kind === 'postgres') {
      expect(found).toMatch(/work_items_pkey on work_items w\s.*\n\s*Index Cond: \(id = /);
      expect(found).not.toMatch(/Scan( Backward)? using work_items_newest/);
    } else {
      expect(found).toMatch(/SEARCH w USING INDEX sqlite_autoindex_work_items_1 \(id=\?\)/);
      expect(found).not.toMatch(/SCAN w\b/);
    }
  });
});
