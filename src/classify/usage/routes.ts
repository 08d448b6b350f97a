import { Type } from 'typebox';
import { ACCESS } from '../../auth/contract.js';
import type { HttpApp } from '../../shared/http/types.js';
import { Nullable, problemResponses } from '../../shared/http/schemas.js';
import { MAX_DAY_ROWS, USAGE_GROUPS, type UsageReader } from './report.js';

export const UsageQuerySchema = Type.Object(
  {
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Start (ISO 8601 date-time); default: 00:00 UTC six days ago' }),
    ),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'End, exclusive (ISO 8601 date-time); default: now' }),
    ),
    group_by: Type.Optional(
      Type.Enum([...USAGE_GROUPS], {
        description: 'One row per UTC day (every day of the window, zeros included) or per model; default day',
      }),
    ),
  },
  { additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });
const figures = {
  calls: Type.Integer({ minimum: 0, description: 'Requests sent to providers, retries included' }),
  input_tokens: Count,
  output_tokens: Count,
  duplicates_served: Type.Integer({
    minimum: 0,
    description: 'Classifications answered from the dedupe store, no provider asked',
  }),
  fallbacks: Type.Integer({
    minimum: 0,
    description: 'Classifications answered with the fallback after the provider failed',
  }),
  unpriced_calls: Type.Integer({
    minimum: 0,
    description: 'Calls to models without a price: counted in the tokens, not in the cost',
  }),
};
const Cost = Type.Number({ minimum: 0, description: 'USD, estimated from the price table (LLM_PRICES)' });

export const UsageReportSchema = Type.Object(
  {
    since: Type.String({ format: 'date-time' }),
    until: Type.String({ format: 'date-time' }),
    group_by: Type.Enum([...USAGE_GROUPS]),
    currency: Type.Literal('USD'),
    totals: Type.Object({ ...figures, estimated_cost: Cost }, { additionalProperties: false }),
    rows: Type.Array(
      Type.Union([
        Type.Object(
          { day: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), ...figures, estimated_cost: Cost },
          { additionalProperties: false },
        ),
        Type.Object(
          { provider: Type.String(), model: Type.String(), ...figures, estimated_cost: Nullable(Cost) },
          { additionalProperties: false },
        ),
      ]),
    ),
  },
  { additionalProperties: false },
);

/** The usage report at `path`: an operator's read, like the work service's lists. */
export function registerUsageRoute(app: HttpApp, path: string, reader: UsageReader, tag: string): void {
  app.get(
    path,
    {
      config: { access: ACCESS.read },
      schema: {
        operationId: 'getClassificationUsage',
        tags: [tag],
        summary: 'LLM usage and estimated cost of the classifier, per UTC day or per model',
        description:
          'Sums kept per hour: an hour counts when it overlaps [since, until). The cost is an estimate from the price table ' +
          '(LLM_PRICES, per million input and output tokens); a model without a price shows its tokens with estimated_cost null, ' +
          `and days and totals count the priced part and name the rest in unpriced_calls. group_by=day covers at most ${MAX_DAY_ROWS} days.`,
        querystring: UsageQuerySchema,
        response: { 200: UsageReportSchema, ...problemResponses(400, 422) },
      },
    },
    async (request) => reader.report(request.query),
  );
}
