import { type RawBuilder, sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WorkItemRow } from '../../work/index.js';
import type { TextTerm } from '../query.js';
import { afterCondition, filterConditions, orderBy, readSources, whereClause } from './cross-dialect.js';
import type { SearchHit, SearchPageRequest, SearchStore } from './port.js';
import { RANKED_WINDOW, type WindowStatements, pageByRelevance } from './ranked-window.js';

// Search on SQLite: an FTS5 MATCH built from parsed terms (words of letters and digits only, so
// each quoted string is a plain token) and ranked by bm25 with the columns weighted.

/**
 * The two indexes of the same documents: every document, and the newest (migration 038), where
 * bm25's walk of each phrase's matches before it ranks is a few thousand documents long.
 */
type FtsIndex = 'search_fts' | 'search_recent';

/**
 * How many documents leave search_recent at once (migration 038). A window this far above its
 * floor is still whole there if they leave between the floor's read and the ranking.
 */
const RECENT_STEP = 1_000;

/** One weight per column: id, type, description, notes, payload, comments, questions, answers, emails. */
const bm25 = (index: FtsIndex) => sql.raw(`bm25(${index}, 8.0, 4.0, 4.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.5)`);

/**
 * Words, prefixes and phrases match every column but `id`, which holds an item's id as two
 * tokens (all 32 hex digits, the first 8) that only a bare id typed may reach: a prefix such as
 * `fad*` or a number such as `1042` never finds an item by its id.
 */
function termMatch(term: TextTerm): string {
  switch (term.kind) {
    case 'word':
      // The stem's prefix holds the word itself; one phrase, since bm25 walks every match of each.
      return term.prefix === null ? `(- {id} : "${term.word}")` : `(- {id} : "${term.prefix}"*)`;
    case 'prefix':
      return `(- {id} : "${term.prefix}"*)`;
    case 'phrase':
      return `(- {id} : "${term.words.join(' ')}")`;
    case 'id':
      return `(id : "${term.hex}" OR ${termMatch(term.text)})`;
    default: {
      const unreachable: never = term;
      throw new Error(`unknown term ${JSON.stringify(unreachable)}`);
    }
  }
}

const anyOf = (terms: readonly TextTerm[]) => `(${terms.map(termMatch).join(' OR ')})`;

/**
 * A place bound for FTS5. better-sqlite3 binds a JS number as a REAL, and FTS5 seeks to a rowid
 * bound only when it is an INTEGER; otherwise it walks every match and SQLite drops the rest.
 */
const place = (value: number) => sql`CAST(${value} AS INTEGER)`;

type SearchRow = WorkItemRow & { search_rank: number; search_place: number | null };

/** The text's FTS5 expression: every included term, none of the excluded. */
function textMatch({ include, exclude }: SearchPageRequest['query']): string {
  return include.map(termMatch).join(' AND ') + (exclude.length > 0 ? ` NOT ${anyOf(exclude)}` : '');
}

function filtersOf({ query, person }: SearchPageRequest): RawBuilder<unknown>[] {
  return filterConditions(
    query.filters,
    person,
    (column, name) => sql`EXISTS (SELECT 1 FROM json_each(${column}) WHERE json_each.value = ${name})`,
  );
}

/**
 * The page's one statement (exported for the plan test). With text by relevance, only the
 * matches whose document (its FTS rowid, the store's place in the index) is in (floor, ceiling]
 * are ranked, and a later page skips the ranked hits shown before: bm25 weighs a word by how
 * many documents hold it, so every item indexed since moves the ranks a cursor would compare.
 * CROSS JOIN keeps the text's matches outermost: started from a filter's items instead (the open
 * questions of is:needs-me), SQLite ran the MATCH once per item. `index` must hold every
 * document above `floor`.
 */
export function sqliteSearchQuery(
  request: SearchPageRequest,
  floor = 0,
  ceiling?: number,
  index: FtsIndex = 'search_fts',
): RawBuilder<SearchRow> {
  const { query, order, after, limit } = request;
  const { include, exclude } = query;
  // With no text every rank is 0: by time alone, which work_items_newest walks in order.
  const sequence = include.length > 0 ? order : 'newest';
  const rank: RawBuilder<unknown> = include.length > 0 ? sql`hits.rank` : sql`0.0`;
  const where = filtersOf(request);
  if (include.length === 0 && exclude.length > 0) {
    where.push(sql`w.id NOT IN (SELECT d.item_id FROM search_fts JOIN search_docs d ON d.doc = search_fts.rowid
        WHERE search_fts MATCH ${anyOf(exclude)})`);
  }
  const skipRanked = include.length > 0 && order === 'relevance' && after !== null;
  if (after !== null && !skipRanked) where.push(afterCondition(sequence, after, rank));
  const fts = sql.raw(index);
  const places = ceiling === undefined ? sql`` : sql` AND ${fts}.rowid <= ${place(ceiling)}`;
  const from =
    include.length > 0
      ? sql`(SELECT ${fts}.rowid AS doc, -${bm25(index)} AS rank FROM ${fts}
          WHERE ${fts} MATCH ${textMatch(query)} AND ${fts}.rowid > ${place(floor)}${places}) hits
        CROSS JOIN search_docs d ON d.doc = hits.doc CROSS JOIN work_items w ON w.id = d.item_id`
      : sql`work_items w`;
  return sql<SearchRow>`SELECT w.*, ${rank} AS search_rank, NULL AS search_place
      FROM ${from} ${whereClause(where)} ${orderBy(sequence, rank)} LIMIT ${limit}${
        skipRanked ? sql` OFFSET ${after.shown}` : sql``
      }`;
}

/** Matches placed in (above, upTo], newest first; CROSS JOIN keeps the FTS walk outermost. */
export function sqliteOlderQuery(request: SearchPageRequest, upTo: number, above: number, limit: number) {
  const where = [
    sql`search_fts MATCH ${textMatch(request.query)}`,
    sql`search_fts.rowid <= ${place(upTo)}`,
    sql`search_fts.rowid > ${place(above)}`,
    ...filtersOf(request),
  ];
  return sql<SearchRow>`SELECT w.*, 0.0 AS search_rank, search_fts.rowid AS search_place
      FROM search_fts CROSS JOIN search_docs d ON d.doc = search_fts.rowid CROSS JOIN work_items w ON w.id = d.item_id
      ${whereClause(where)} ORDER BY search_fts.rowid DESC LIMIT ${limit}`;
}

const toHit = ({ search_rank, search_place, ...row }: SearchRow): SearchHit => ({
  row: row as WorkItemRow,
  rank: Number(search_rank),
  older: search_place === null ? null : Number(search_place),
});

export function sqliteSearchStore(db: DatabaseHandle, windowSize = RANKED_WINDOW): SearchStore {
  const rows = async (query: RawBuilder<SearchRow>) => (await query.execute(db)).rows.map(toHit);
  const statements: WindowStatements = {
    async countMatches(request, cap, above) {
      const { rows: found } = await sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT 1 FROM search_fts
          WHERE search_fts MATCH ${textMatch(request.query)} AND search_fts.rowid > ${place(above)} LIMIT ${cap})`.execute(
        db,
      );
      return Number(found[0]?.n ?? 0);
    },
    async lastPlace() {
      const { rows: found } = await sql<{ n: number | null }>`SELECT max(doc) AS n FROM search_docs`.execute(db);
      return Number(found[0]?.n ?? 0);
    },
    async ranked(request, floor, ceiling) {
      const { rows: found } = await sql<{ floor: number }>`SELECT floor FROM search_recent_floor`.execute(db);
      const recentFrom = Number(found[0]?.floor ?? Infinity) + RECENT_STEP;
      const index = floor >= recentFrom ? 'search_recent' : 'search_fts';
      return rows(sqliteSearchQuery(request, floor, ceiling, index));
    },
    older: (request, upTo, above, limit) => rows(sqliteOlderQuery(request, upTo, above, limit)),
  };
  return {
    async search(request) {
      if (request.query.include.length === 0 || request.order !== 'relevance') {
        return { hits: await rows(sqliteSearchQuery(request)), floor: 0, ceiling: 0 };
      }
      return pageByRelevance(statements, request, windowSize);
    },

    sources: (itemIds) => readSources(db, itemIds),
  };
}
