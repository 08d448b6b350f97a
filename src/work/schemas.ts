import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema, UuidSchema } from '../shared/schemas.js';

import { OUTCOMES, type Outcome, WORK_STATUSES, type WorkStatus } from './statuses.js';

export { OUTCOMES, WORK_STATUSES, type Outcome, type WorkStatus };

export const SORT_ORDERS = ['newest', 'priority'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export const MAX_PAYLOAD_BYTES = 64 * 1024;
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;

export const StatusSchema = Type.Enum([...WORK_STATUSES]);
export const OutcomeSchema = Type.Enum([...OUTCOMES]);

export const WorkTypeSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]*$',
  description: 'Work category, e.g. code_review',
});

export const AgentNameSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_.@-]+$',
  description: 'Agent username',
});

export const DescriptionSchema = Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S' });
export const PrioritySchema = Type.Integer({ minimum: 1, maximum: 5, description: '1 is the highest' });
export const NotesSchema = Type.String({ maxLength: 10_000 });
export const PayloadSchema = Type.Object({}, { additionalProperties: true, description: 'Type-specific data' });

export const DispatchEntrySchema = Type.Object(
  {
    id: UuidSchema,
    work_item_id: UuidSchema,
    dispatched_at: TimestampSchema,
    agent: Type.String(),
    completed_at: Nullable(TimestampSchema),
    outcome: Nullable(OutcomeSchema),
  },
  { additionalProperties: false },
);
export type DispatchEntry = Static<typeof DispatchEntrySchema>;

const workItemFields = {
  id: UuidSchema,
  type: Type.String(),
  description: Type.String(),
  priority: Type.Integer(),
  status: StatusSchema,
  assigned_agent: Nullable(Type.String()),
  created_by: Type.String(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  completed_at: Nullable(TimestampSchema),
  outcome: Nullable(OutcomeSchema),
  notes: Nullable(Type.String()),
  payload: Nullable(PayloadSchema),
  project_id: Nullable(UuidSchema),
};

/** A work item as lists return it: every field but the dispatch log. */
export const WorkItemSummarySchema = Type.Object(workItemFields, { additionalProperties: false });
export type WorkItemSummary = Static<typeof WorkItemSummarySchema>;

export const WorkItemSchema = Type.Object(
  { ...workItemFields, dispatch_log: Type.Array(DispatchEntrySchema) },
  { additionalProperties: false },
);
export type WorkItem = Static<typeof WorkItemSchema>;

export const CreateWorkItemSchema = Type.Object(
  {
    type: WorkTypeSchema,
    description: DescriptionSchema,
    priority: Type.Optional(PrioritySchema),
    agent: Type.Optional(AgentNameSchema),
    project_id: Type.Optional(Nullable(UuidSchema)),
    payload: Type.Optional(Nullable(PayloadSchema)),
  },
  { additionalProperties: false },
);
export type CreateWorkItem = Static<typeof CreateWorkItemSchema>;

export const UpdateWorkItemSchema = Type.Object(
  {
    status: Type.Optional(StatusSchema),
    outcome: Type.Optional(OutcomeSchema),
    notes: Type.Optional(Nullable(NotesSchema)),
    agent: Type.Optional(AgentNameSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWorkItem = Static<typeof UpdateWorkItemSchema>;

const filterFields = {
  agent: Type.Optional(AgentNameSchema),
  project_id: Type.Optional(UuidSchema),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'ISO 8601 with a zone; items created strictly after' }),
  ),
  type: Type.Optional(WorkTypeSchema),
};

export const ListWorkQuerySchema = Type.Object(
  {
    status: Type.Optional(StatusSchema),
    ...filterFields,
    sort: Type.Optional(Type.Enum([...SORT_ORDERS], { description: 'newest (default) or priority (queue order)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Opaque; from the Link header' })),
  },
  { additionalProperties: false },
);
export type ListWorkQuery = Static<typeof ListWorkQuerySchema>;

const { agent: _agentFilter, ...agentQueueFields } = ListWorkQuerySchema.properties;
export const AgentWorkQuerySchema = Type.Object(agentQueueFields, { additionalProperties: false });

export const CountsQuerySchema = Type.Object(filterFields, { additionalProperties: false });
export type CountsQuery = Static<typeof CountsQuerySchema>;

export const StatusCountsSchema = Type.Object(
  Object.fromEntries(WORK_STATUSES.map((status) => [status, Type.Integer({ minimum: 0 })])) as Record<
    WorkStatus,
    ReturnType<typeof Type.Integer>
  >,
  { additionalProperties: false },
);
export type StatusCounts = Record<WorkStatus, number>;

export const WorkIdParamsSchema = Type.Object({ id: UuidSchema });
export const AgentParamsSchema = Type.Object({ agent: AgentNameSchema });

export const ProjectSchema = Type.Object(
  {
    id: UuidSchema,
    name: Type.String(),
    external_ref: Nullable(Type.String()),
    created_at: TimestampSchema,
  },
  { additionalProperties: false },
);
export type Project = Static<typeof ProjectSchema>;

const ProjectNameSchema = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const ExternalRefSchema = Type.String({ maxLength: 2_000 });

export const CreateProjectSchema = Type.Object(
  { name: ProjectNameSchema, external_ref: Type.Optional(Nullable(ExternalRefSchema)) },
  { additionalProperties: false },
);
export type CreateProject = Static<typeof CreateProjectSchema>;

export const UpdateProjectSchema = Type.Object(
  { name: Type.Optional(ProjectNameSchema), external_ref: Type.Optional(Nullable(ExternalRefSchema)) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateProject = Static<typeof UpdateProjectSchema>;

export const ProjectIdParamsSchema = Type.Object({ id: UuidSchema });

/** The X-User header names the caller until authentication arrives. */
export const UserHeadersSchema = Type.Object({ 'x-user': Type.Optional(AgentNameSchema) });
