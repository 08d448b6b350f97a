import type { HttpApp } from '../shared/http.js';
import { problemResponses } from '../shared/schemas.js';
import { CLASSIFY_BODY_LIMIT, ClassifyRequestSchema, ClassifyResultSchema } from './schemas.js';
import { ANONYMOUS } from './scope.js';
import type { ClassifyService } from './service.js';

export function registerClassifyRoutes(app: HttpApp, service: ClassifyService): void {
  app.post(
    '/classify',
    {
      bodyLimit: CLASSIFY_BODY_LIMIT,
      schema: {
        tags: ['classification'],
        summary: 'Classify one email (simplified shape or a Microsoft Graph message)',
        description:
          'Always 200 for a valid email: when the provider fails after every retry the result is `uncategorized` with confidence 0 and a reasoning that names the failure.',
        body: ClassifyRequestSchema,
        response: { 200: ClassifyResultSchema, ...problemResponses(400, 403, 413, 415, 422, 503) },
      },
    },
    // No tokens yet: every caller is the anonymous one, so scopes differ by provider settings only.
    async (request) => service.classify(request.body, ANONYMOUS),
  );
}
