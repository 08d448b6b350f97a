import { Type } from 'typebox';
import { ACCESS } from '../auth/contract.js';
import { nextLink } from '../shared/http/paging.js';
import { withHeaders } from '../shared/http/openapi.js';
import { problemResponses } from '../shared/http/schemas.js';
import type { HttpApp } from '../shared/http/types.js';
import { SEARCH_PAGE, SearchQuerySchema, SearchResultSchema } from './schemas.js';
import type { SearchService } from './service.js';

// GET /search: thin, as every list route: parse, one service call, the next page in the Link header.

export function registerSearchRoutes(app: HttpApp, search: SearchService): void {
  app.get(
    '/search',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'searchWorkItems',
        tags: ['work items'],
        summary: 'Items matching a query (words, phrases, filters), best first; next page in the Link header',
        querystring: SearchQuerySchema,
        response: {
          200: withHeaders(Type.Array(SearchResultSchema, { maxItems: SEARCH_PAGE.max }), 'Link'),
          ...problemResponses(422),
        },
      },
    },
    async (request, reply) => {
      const page = await search.search(request.query, request.principal);
      if (page.next_cursor) {
        reply.header('link', nextLink(request.url, request.query as Record<string, unknown>, page.next_cursor));
      }
      return page.results;
    },
  );
}
