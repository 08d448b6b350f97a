import { type RawBuilder, sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WorkItemRow } from '../../work/index.js';
import type { TextTerm } from '../query.js';
import { afterCondition, filterConditions, orderBy, readSources, whereClause } from './cross-dialect.js';
import type { SearchHit, SearchPageRequest, SearchStore } from './port.js';
import { RANKED_WINDOW, type WindowStatements, pageByRelevance } from './ranked-window.js';

// Search on PostgreSQL: a tsquery built from parsed terms (words of letters and digits only)
// against work_search's weighted tsvector, ranked by ts_rank_cd.

/** Weights of D (mail), C (conversation), B (notes, payload), A (id, type, description). */
const WEIGHTS = sql.raw(`'{0.1, 0.3, 0.6, 1.0}'::float4[]`);

function tsqueryText(term: TextTerm): string {
  switch (term.kind) {
    case 'word':
      // The stem's prefix holds the word itself, as on SQLite.
      return term.prefix === null ? term.word : `${term.prefix}:*`;
    case 'prefix':
      return `${term.prefix}:*`;
    case 'phrase':
      return `(${term.words.join(' <-> ')})`;
    case 'id':
      return tsqueryText(term.text);
    default: {
      const unreachable: never = term;
      throw new Error(`unknown term ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * A term's tsquery. An item's id is indexed as the lexemes '#' + 32 hex digits and '#' + the
 * first 8, which no folded word holds, so only a bare id typed reaches them (a cast, since
 * to_tsquery's parser would drop the '#'); a prefix or a number never finds an item by its id.
 */
function termQuery(term: TextTerm): RawBuilder<unknown> {
  const words = sql`to_tsquery('simple', ${tsqueryText(term)})`;
  return term.kind === 'id' ? sql`(${words} || ${`'#${term.hex}'`}::tsquery)` : words;
}

const allOf = (terms: readonly TextTerm[]) => sql.join(terms.map(termQuery), sql` && `);
const anyOf = (terms: readonly TextTerm[]) => sql`(${sql.join(terms.map(termQuery), sql` || `)})`;

/**
 * Set for the search's transaction when it matches text. PostgreSQL estimates a prefix term
 * (every stemmed word is one) at a fixed share of the rows however rare its word, and on that
 * guess reads the whole table rather than the GIN index; the index is right for any word. On
 * the same guess it starts parallel workers, whose start costs more than the few rows they read.
 */
export const SEARCH_PLANNER_SETTINGS = [
  ['enable_seqscan', 'off'],
  ['max_parallel_workers_per_gather', '0'],
] as const;

type SearchRow = WorkItemRow & { search_rank: number; search_place: string | number | null };

/** The text's tsquery: every included term, none of the excluded. */
function textQuery({ include, exclude }: SearchPageRequest['query']): RawBuilder<unknown> {
  return exclude.length > 0 ? sql`(${allOf(include)} && !!${anyOf(exclude)})` : sql`(${allOf(include)})`;
}

const filtersOf = ({ query, person }: SearchPageRequest) =>
  filterConditions(query.filters, person, (column, name) => sql`jsonb_exists(${column}::jsonb, ${name})`);

/**
 * The page's one statement (exported for the plan test); with text by relevance, only the
 * matches whose document's place in the index (work_search.seq) is in (floor, ceiling] are ranked.
 */
export function postgresSearchQuery(request: SearchPageRequest, floor = 0, ceiling?: number): RawBuilder<SearchRow> {
  const { query, order, after, limit } = request;
  const { include, exclude } = query;
  // With no text every rank is 0: by time alone, which work_items_newest walks in order.
  const sequence = include.length > 0 ? order : 'newest';
  const where = filtersOf(request);
  let rank: RawBuilder<unknown> = sql`0.0::float8`;
  let from: RawBuilder<unknown> = sql`work_items w`;
  if (include.length > 0) {
    const text = textQuery(query);
    rank = sql`ts_rank_cd(${WEIGHTS}, s.doc, ${text})::float8`;
    from = sql`work_search s JOIN work_items w ON w.id = s.item_id`;
    where.unshift(sql`s.doc @@ ${text}`);
    if (floor > 0) where.push(sql`s.seq > ${floor}`);
    if (ceiling !== undefined) where.push(sql`s.seq <= ${ceiling}`);
  } else if (exclude.length > 0) {
    where.push(sql`w.id NOT IN (SELECT x.item_id FROM work_search x WHERE x.doc @@ ${anyOf(exclude)})`);
  }
  if (after !== null) where.push(afterCondition(sequence, after, rank));
  return sql<SearchRow>`SELECT w.*, ${rank} AS search_rank, NULL::bigint AS search_place
      FROM ${from} ${whereClause(where)} ${orderBy(sequence, rank)} LIMIT ${limit}`;
}

/** Matches placed in (above, upTo], newest first. */
export function postgresOlderQuery(request: SearchPageRequest, upTo: number, above: number, limit: number) {
  const where = [
    sql`s.doc @@ ${textQuery(request.query)}`,
    sql`s.seq <= ${upTo}`,
    sql`s.seq > ${above}`,
    ...filtersOf(request),
  ];
  return sql<SearchRow>`SELECT w.*, 0.0::float8 AS search_rank, s.seq AS search_place
      FROM work_search s JOIN work_items w ON w.id = s.item_id
      ${whereClause(where)} ORDER BY s.seq DESC LIMIT ${limit}`;
}

const toHit = ({ search_rank, search_place, ...row }: SearchRow): SearchHit => ({
  row: row as WorkItemRow,
  rank: Number(search_rank),
  older: search_place === null ? null : Number(search_place),
});

function windowStatements(db: DatabaseHandle): WindowStatements {
  const rows = async (query: RawBuilder<SearchRow>) => (await query.execute(db)).rows.map(toHit);
  return {
    async countMatches(request, cap, above) {
      const newest = above > 0 ? sql` AND s.seq > ${above}` : sql``;
      const { rows: found } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM work_search s
          WHERE s.doc @@ ${textQuery(request.query)}${newest} LIMIT ${cap}) x`.execute(db);
      return Number(found[0]?.n ?? 0);
    },
    async lastPlace() {
      const { rows: found } = await sql<{ n: string | null }>`SELECT max(seq) AS n FROM work_search`.execute(db);
      return Number(found[0]?.n ?? 0);
    },
    ranked: (request, floor, ceiling) => rows(postgresSearchQuery(request, floor, ceiling)),
    older: (request, upTo, above, limit) => rows(postgresOlderQuery(request, upTo, above, limit)),
  };
}

export function postgresSearchStore(db: DatabaseHandle, windowSize = RANKED_WINDOW): SearchStore {
  return {
    async search(request) {
      if (request.query.include.length === 0) {
        return { hits: (await postgresSearchQuery(request).execute(db)).rows.map(toHit), floor: 0, ceiling: 0 };
      }
      return db.transaction().execute(async (trx) => {
        for (const [name, value] of SEARCH_PLANNER_SETTINGS) {
          await sql`SELECT set_config(${name}, ${value}, true)`.execute(trx);
        }
        if (request.order !== 'relevance') {
          return { hits: (await postgresSearchQuery(request).execute(trx)).rows.map(toHit), floor: 0, ceiling: 0 };
        }
        return pageByRelevance(windowStatements(trx), request, windowSize);
      });
    },

    sources: (itemIds) => readSources(db, itemIds),
  };
}
