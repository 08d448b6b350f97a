// search's wire vocabulary for the layers above and for clients: schemas and import-free lists only.

export {
  MAX_SEARCH_QUERY,
  SEARCH_PAGE,
  SEARCH_PLACES,
  SEARCH_SORTS,
  SearchPlaceSchema,
  SearchQuerySchema,
  SearchResultSchema,
  type SearchQuery,
  type SearchResult,
} from './schemas.js';
