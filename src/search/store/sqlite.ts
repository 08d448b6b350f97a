import { type RawBuilder, sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WorkItemRow } from '../../work/index.js';
import type { TextTerm } from '../query.js';
import { afterCondition, filterConditions, orderBy, readSources, whereClause } from './cross-dialect.js';
import type { SearchHit, SearchPageRequest, SearchStore } from './port.js';

// Search on SQLite: an FTS5 MATCH built from parsed terms (words of letters and digits only, so
// each quoted string is a plain token) and ranked by bm25 with the columns weighted.

/** One weight per search_fts column: id, type, description, notes, payload, comments, questions, answers, emails. */
const BM25 = sql.raw('bm25(search_fts, 8.0, 4.0, 4.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.5)');

/**
 * Words, prefixes and phrases match every column but `id`, which holds an item's id as two
 * tokens (all 32 hex digits, the first 8) that only a bare id typed may reach: a prefix such as
 * `fad*` or a number such as `1042` never finds an item by its id.
 */
function termMatch(term: TextTerm): string {
  switch (term.kind) {
    case 'word':
      return term.prefix === null ? `(- {id} : "${term.word}")` : `(- {id} : ("${term.word}" OR "${term.prefix}"*))`;
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

type SearchRow = WorkItemRow & { search_rank: number };

/** The page's one statement (exported for the plan test). */
export function sqliteSearchQuery({ query, person, order, after, limit }: SearchPageRequest): RawBuilder<SearchRow> {
  const { include, exclude } = query;
  const rank: RawBuilder<unknown> = include.length > 0 ? sql`hits.rank` : sql`0.0`;
  const where = filterConditions(
    query.filters,
    person,
    (column, name) => sql`EXISTS (SELECT 1 FROM json_each(${column}) WHERE json_each.value = ${name})`,
  );
  if (include.length === 0 && exclude.length > 0) {
    where.push(sql`w.id NOT IN (SELECT d.item_id FROM search_fts JOIN search_docs d ON d.doc = search_fts.rowid
        WHERE search_fts MATCH ${anyOf(exclude)})`);
  }
  if (after !== null) where.push(afterCondition(order, after, rank));
  const from =
    include.length > 0
      ? sql`(SELECT search_fts.rowid AS doc, -${BM25} AS rank FROM search_fts WHERE search_fts MATCH ${
          include.map(termMatch).join(' AND ') + (exclude.length > 0 ? ` NOT ${anyOf(exclude)}` : '')
        }) hits JOIN search_docs d ON d.doc = hits.doc JOIN work_items w ON w.id = d.item_id`
      : sql`work_items w`;
  return sql<SearchRow>`SELECT w.*, ${rank} AS search_rank
      FROM ${from} ${whereClause(where)} ${orderBy(order, rank)} LIMIT ${limit}`;
}

export function sqliteSearchStore(db: DatabaseHandle): SearchStore {
  return {
    async search(request) {
      const found = await sqliteSearchQuery(request).execute(db);
      return found.rows.map(({ search_rank, ...row }): SearchHit => ({ row: row as WorkItemRow, rank: search_rank }));
    },

    sources: (itemIds) => readSources(db, itemIds),
  };
}
