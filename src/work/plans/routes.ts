import { Type } from 'typebox';
import { ACCESS } from '../../auth/contract.js';
import type { HttpApp } from '../../shared/http/types.js';
import { withHeaders } from '../../shared/http/openapi.js';
import { problemResponses } from '../../shared/http/schemas.js';
import { CreatePlanSchema, SubmittedPlanSchema } from './schemas.js';
import { MAX_DEPENDENTS, type PlanService } from './service.js';
import { SubmitHeadersSchema, WorkIdParamsSchema, WorkItemSummarySchema } from '../api-contract.js';

// POST /work/plans: a parent item and its steps in one request, because "all or nothing" needs one
// transaction, which a client sending one POST /work per step cannot have. Beside POST /work (its
// fields, its Idempotency-Key), under /work because what it makes are work items.

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
        response: {
          201: withHeaders(SubmittedPlanSchema, 'Location', 'Idempotent-Replayed'),
          ...problemResponses(400, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { plan, replayed } = await plans.submitPlan(
        request.body,
        request.principal!,
        request.headers['idempotency-key'],
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).header('location', `/work/${plan.parent.id}`).send(plan);
    },
  );

  // The other direction of depends_on, apart from GET /work/{id} because an item may have
  // thousands of dependents and reading one item must stay cheap.
  app.get(
    '/work/:id/dependents',
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'listWorkItemDependents',
        tags: ['work items'],
        summary: `The items that depend on this one (whose depends_on names it), oldest dependency first, at most ${MAX_DEPENDENTS}`,
        params: WorkIdParamsSchema,
        response: { 200: Type.Array(WorkItemSummarySchema, { maxItems: MAX_DEPENDENTS }), ...problemResponses(404) },
      },
    },
    async (request) => plans.dependents(request.params.id),
  );
}
