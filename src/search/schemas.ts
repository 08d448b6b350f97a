import { type Static, Type } from 'typebox';
import { WorkItemSummarySchema } from '../work/contract.js';

// The wire shapes of GET /search, free of server imports beyond TypeBox: the web UI bundles them.

export const SEARCH_PAGE = { default: 25, max: 100 } as const;
/** Longer queries are refused with a 422 naming the limit (the parser holds the same number). */
export const MAX_SEARCH_QUERY = 500;
export const SEARCH_SORTS = ['relevance', 'newest'] as const;
export const SEARCH_PLACES = [
  'id',
  'type',
  'description',
  'notes',
  'payload',
  'comment',
  'question',
  'answer',
  'email',
] as const;

export const SearchQuerySchema = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      // Above the parser's limit, so an over-long query is answered with its clear 422.
      maxLength: 4096,
      description:
        'Words (all must match), "exact phrase", -word, word*, and filters status: agent: type: project: by: is:open is:final is:needs-me created:>YYYY-MM-DD priority:N (docs/search.md)',
    }),
    sort: Type.Optional(Type.Enum([...SEARCH_SORTS], { default: 'relevance' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_PAGE.max, default: SEARCH_PAGE.default })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Opaque; from the Link header' })),
  },
  { additionalProperties: false },
);
export type SearchQuery = Static<typeof SearchQuerySchema>;

export const SearchPlaceSchema = Type.Enum([...SEARCH_PLACES]);

export const SearchResultSchema = Type.Object(
  {
    item: WorkItemSummarySchema,
    /** Every place a word of the query was found, in a fixed order. */
    matched_in: Type.Array(SearchPlaceSchema, { maxItems: SEARCH_PLACES.length }),
    /** The best passage: HTML-escaped text with the matched words in <mark>; null for a query of filters only. */
    highlight: Type.Union([
      Type.Object({ field: SearchPlaceSchema, html: Type.String() }, { additionalProperties: false }),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);
export type SearchResult = Static<typeof SearchResultSchema>;
