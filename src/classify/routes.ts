import type { HttpApp } from '../shared/http.js';
import { problemResponses } from '../shared/schemas.js';
import { CLASSIFY_BODY_LIMIT, ClassifyRequestSchema, ClassifyResultSchema } from './schemas.js';
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
          'Always 200 for a valid email: when the provider fails after every retry the result is `uncategorized` with confidence 0 and a reasoning that names the failure. 429 with Retry-After when the caller already has LLM_CONCURRENCY provider calls in flight and LLM_QUEUE more waiting.',
        body: ClassifyRequestSchema,
        response: { 200: ClassifyResultSchema, ...problemResponses(400, 403, 413, 415, 422, 429, 503) },
      },
    },
    // The caller is the client address until API tokens exist; then it is the token's id.
    async (request) => service.classify(request.body, request.ip),
  );
}
