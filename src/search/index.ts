// search's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export {
  MAX_QUERY_LENGTH,
  MAX_TERMS,
  parseQuery,
  type ParsedQuery,
  type SearchFilters,
  type TextTerm,
} from './query.js';
export { registerSearchRoutes } from './routes.js';
export { createSearchService, type SearchPage, type SearchService } from './service.js';
export { createSearchStore } from './store/index.js';
export type { SearchStore } from './store/port.js';
