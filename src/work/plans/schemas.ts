import { type Static, Type } from 'typebox';
import { UuidSchema } from '../../shared/http/schemas.js';
import { CreateWorkItemSchema, LINK_LIMITS, WorkItemDetailSchema } from '../api-contract.js';

// The shapes of POST /work/plans: a parent item and its steps, submitted together,
// the steps naming each other by local keys because none of them has an id yet. Every item
// field is the submit's own schema, so a field the submit gains (or bounds) a plan takes too.

/** Steps in one plan: a plan is read and written whole, in one transaction. */
export const MAX_PLAN_STEPS = 200;
/**
 * Dependencies in one plan, all steps together (`depends_on` and `depends_on_keys`): a plan is
 * one transaction, and on SQLite it holds the only writer; this bounds how long.
 */
export const MAX_PLAN_DEPENDENCIES = 2_000;
/** Local references per step, as many as a submit's `depends_on` may hold. */
export const MAX_STEP_REFERENCES = LINK_LIMITS.dependencies;

export const PlanKeySchema = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$',
  description: 'A name for the step, unique in the plan, that other steps depend on (e.g. schema)',
});

// A plan queues its items; dispatching one is a PATCH afterwards (a step whose dependencies
// are unfinished could not be dispatched anyway). A step's parent is the plan's parent.
const { agent: _agent, ...itemFields } = CreateWorkItemSchema.properties;
const { parent_id: _parent, ...stepItemFields } = itemFields;

export const PlanParentSchema = Type.Object(itemFields, {
  additionalProperties: false,
  description: 'The item the steps are children of; the same fields as a submit, but no agent',
});

export const PlanStepSchema = Type.Object(
  {
    key: PlanKeySchema,
    depends_on_keys: Type.Optional(
      Type.Array(PlanKeySchema, {
        maxItems: MAX_STEP_REFERENCES,
        uniqueItems: true,
        description: 'Keys of steps of this plan that must complete before this one can be claimed',
      }),
    ),
    ...stepItemFields,
  },
  { additionalProperties: false, description: 'One step: a child of the parent; project_id defaults to the parent’s' },
);
export type PlanStep = Static<typeof PlanStepSchema>;

export const CreatePlanSchema = Type.Object(
  {
    parent: PlanParentSchema,
    steps: Type.Array(PlanStepSchema, {
      minItems: 1,
      maxItems: MAX_PLAN_STEPS,
      description: `At most ${MAX_PLAN_STEPS} steps, and ${MAX_PLAN_DEPENDENCIES} dependencies (depends_on and depends_on_keys) in all`,
    }),
  },
  { additionalProperties: false },
);
export type CreatePlan = Static<typeof CreatePlanSchema>;

/** What POST /work/plans answers: the parent as GET /work/{id} shows it, and the steps' ids. */
export const SubmittedPlanSchema = Type.Object(
  {
    parent: WorkItemDetailSchema,
    steps: Type.Record(PlanKeySchema, UuidSchema, { description: 'The id of each step, by its key' }),
  },
  { additionalProperties: false },
);
export type SubmittedPlan = Static<typeof SubmittedPlanSchema>;
