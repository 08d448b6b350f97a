import { ACCESS } from '../auth/roles.js';
import type { HttpApp } from '../shared/http-types.js';
import { withHeaders } from '../shared/openapi.js';
import { problemResponses } from '../shared/schemas.js';
import { CreatePlanSchema, SubmittedPlanSchema } from './plan-schemas.js';
import type { PlanService } from './plan-service.js';
import { SubmitHeadersSchema } from './schemas.js';

// POST /work/plans: a parent item and its steps in one request, because "all or nothing" needs
// one transaction, which a client sending one POST /work per step cannot have. Beside POST /work
// (its fields, its Idempotency-Key), under /work because what it makes are work items.

export function registerPlanRoutes(app: HttpApp, plans: PlanService): void {
  app.post(
    '/work/plans',
    {
      config: { access: ACCESS.submit },
      schema: {
        operationId: 'submitWorkPlan',
        tags: ['work items'],
        summary:
          'Submit a plan: a parent item and its steps, which depend on each other by key; all created in one transaction, or none',
        headers: SubmitHeadersSchema,
        body: CreatePlanSchema,
        response: { 201: withHeaders(SubmittedPlanSchema, 'Location', 'Idempotent-Replayed'), ...problemResponses(400, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { plan, replayed } = await plans.submitPlan(request.body, request.principal!, request.headers['idempotency-key']);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).header('location', `/work/${plan.parent.id}`).send(plan);
    },
  );
}
