import type { ClassifyBudget } from '../auth/index.js';
import { ACCESS } from '../auth/contract.js';
import { ForbiddenError } from '../shared/errors.js';
import type { HttpApp } from '../shared/http/types.js';
import { problemResponses } from '../shared/http/schemas.js';
import { hasOverrides } from './providers.js';
import { CLASSIFY_BODY_LIMIT, ClassifyRequestSchema, ClassifyResultSchema } from './schemas.js';
import { ANONYMOUS } from './dedupe/scope.js';
import type { ClassifyService } from './service.js';

export function registerClassifyRoutes(app: HttpApp, service: ClassifyService, budget: ClassifyBudget): void {
  app.post(
    '/classify',
    {
      bodyLimit: CLASSIFY_BODY_LIMIT,
      config: { access: ACCESS.classify },
      schema: {
        operationId: 'classifyEmail',
        tags: ['classification'],
        summary: 'Classify one email (simplified shape or a Microsoft Graph message)',
        description:
          'Always 200 for a valid email: when the provider fails after every retry the result is `uncategorized` with confidence 0 and a reasoning that names the failure. ' +
          'Provider overrides (provider, model, base_url, api_key, temperature) need an admin token. Each token may classify CLASSIFY_RATE_LIMIT emails a minute; duplicates served from the store are free. ' +
          '429 with Retry-After also when the caller (its token, or its address without tokens) already has LLM_CONCURRENCY provider calls in flight and LLM_QUEUE more waiting.',
        body: ClassifyRequestSchema,
        response: { 200: ClassifyResultSchema, ...problemResponses(400, 403, 413, 415, 422, 429, 503) },
      },
    },
    async (request) => {
      // Choosing the provider, its host or its key spends the operator's trust: admins only.
      const overrides = hasOverrides(request.body);
      if (overrides && request.principal?.role !== 'admin') {
        throw new ForbiddenError(
          'Per-request provider settings (provider, model, base_url, api_key, temperature) need an admin token',
        );
      }
      // Answers made on the server's own settings are shared by every caller; answers made
      // under a token's overrides stay that token's (see scope.ts). Without tokens there is
      // one caller, so the provider settings alone tell scopes apart.
      const context = overrides && request.principal?.token_id ? { caller: request.principal.token_id } : ANONYMOUS;
      // The provider limiter's line is the token's (the client address when tokens are off):
      // a per-minute budget does not stop one caller from filling the provider's concurrency.
      // The budget is asked only when the store has no answer to serve (service.ts).
      const { classification } = await service.classify(
        request.body,
        context,
        request.identity?.credential ?? request.ip,
        budget.takerFor(request.identity),
      );
      return classification;
    },
  );
}
