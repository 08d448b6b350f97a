import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema, UuidSchema } from '../shared/http/schemas.js';
import { ATTEMPT_LIMITS, LEASE_LIMITS, RETRY_DELAY_LIMITS, WAIT_LIMITS } from './agent-loop/limits.js';

import {
  CHANGE_ACTIONS,
  CONVERSATION_ACTIONS,
  DISPATCH_REASONS,
  type HistoryAction,
  MOVE_ACTIONS,
  type DispatchReason,
  OUTCOMES,
  type Outcome,
  WORK_STATUSES,
  type WorkStatus,
} from './items/statuses.js';

export {
  DISPATCH_REASONS,
  OUTCOMES,
  WORK_STATUSES,
  type DispatchReason,
  type HistoryAction,
  type Outcome,
  type WorkStatus,
};

export const SORT_ORDERS = ['newest', 'priority'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export const MAX_PAYLOAD_BYTES = 64 * 1024;
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;

export const StatusSchema = Type.Enum([...WORK_STATUSES]);
export const OutcomeSchema = Type.Enum([...OUTCOMES]);
export const DispatchReasonSchema = Type.Enum([...DISPATCH_REASONS]);

export { ATTEMPT_LIMITS, LEASE_LIMITS, RETRY_DELAY_LIMITS, WAIT_LIMITS };

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

/** A person: the name its member token acts as (X-User with AUTH=off), as agents are named. */
export const PersonNameSchema = Type.String({
  ...AgentNameSchema,
  description: 'A person (its profile: /people/{name})',
});

/** How many people a list may name: watchers and escalation (projects, items), a question's `to`. */
export const PEOPLE_LIMITS = { watchers: 50, escalate_to: 50, to: 10 } as const;

/** Names of people, each once; a PATCH replaces the list, [] clears it. */
export function peopleListSchema(maxItems: number, description: string) {
  return Type.Array(PersonNameSchema, { maxItems, uniqueItems: true, description });
}

/** A list of names as a view shows it: [] when none are set. */
const PeopleViewSchema = Type.Array(Type.String());

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
    reason: Nullable(DispatchReasonSchema),
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
  version: Type.Integer({ minimum: 1, description: 'Incremented by every change; also the ETag' }),
  attempts: Type.Integer({ minimum: 0, description: 'Claims made so far' }),
  max_attempts: Type.Integer(),
  retry_delay_s: Type.Integer(),
  run_after: Nullable(TimestampSchema),
  lease_expires_at: Nullable(TimestampSchema),
  parent_id: Nullable({ ...UuidSchema, description: 'The item this one is a part of' }),
  waiting_on: Type.Integer({
    minimum: 0,
    description:
      "Dependencies not yet completed (a plan's parent counts one more, until the desk completes it); claimable only at 0",
  }),
};

/** A work item as lists return it: every field but the dispatch log. */
export const WorkItemSummarySchema = Type.Object(workItemFields, { additionalProperties: false });
export type WorkItemSummary = Static<typeof WorkItemSummarySchema>;

/** true, false, or null for the project's setting. */
const ReviewRequiredSchema = Nullable(
  Type.Boolean({ description: "The holder's completion waits for a person's review; null: the project's setting" }),
);

/** What the conversation adds to an item's full view. */
const conversationFields = {
  comment_count: Type.Integer({ minimum: 0, description: 'Comments on the item (GET /work/{id}/comments)' }),
  review_required: ReviewRequiredSchema,
};

/** Who is told of the item's questions and reviews, beside its project's watchers (src/notify). */
const WatchersSchema = peopleListSchema(
  PEOPLE_LIMITS.watchers,
  `People told of its questions and reviews (at most ${PEOPLE_LIMITS.watchers}); a PATCH replaces the list`,
);

export const WorkItemSchema = Type.Object(
  {
    ...workItemFields,
    dispatch_log: Type.Array(DispatchEntrySchema),
    ...conversationFields,
    watchers: PeopleViewSchema,
  },
  { additionalProperties: false },
);
export type WorkItem = Static<typeof WorkItemSchema>;

/** The limits of a plan: dependencies per item, children per parent, nesting depth. */
export const LINK_LIMITS = { dependencies: 50, children: 1_000, depth: 8 } as const;

export const DependsOnSchema = Type.Array(UuidSchema, {
  maxItems: LINK_LIMITS.dependencies,
  description: `Items that must complete before this one can be claimed (at most ${LINK_LIMITS.dependencies}); a PATCH replaces the list`,
});
const ParentIdSchema = {
  ...UuidSchema,
  description: `The item this one is a part of (at most ${LINK_LIMITS.children} children, ${LINK_LIMITS.depth} levels)`,
};

export const BlockerSchema = Type.Object(
  { id: UuidSchema, status: StatusSchema, description: Type.String() },
  { additionalProperties: false },
);
export type Blocker = Static<typeof BlockerSchema>;

export const ChildCountsSchema = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    queued: Type.Integer({ minimum: 0 }),
    active: Type.Integer({ minimum: 0, description: 'dispatched, in_progress or blocked' }),
    completed: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    cancelled: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type ChildCounts = Static<typeof ChildCountsSchema>;

/** One item as GET /work/{id} shows it: with its dependencies, what blocks it, and its children. */
export const WorkItemDetailSchema = Type.Object(
  {
    ...workItemFields,
    dispatch_log: Type.Array(DispatchEntrySchema),
    ...conversationFields,
    watchers: PeopleViewSchema,
    depends_on: Type.Array(UuidSchema, { maxItems: LINK_LIMITS.dependencies }),
    blocked_by: Type.Array(BlockerSchema, {
      maxItems: LINK_LIMITS.dependencies,
      description: 'The dependencies not yet completed',
    }),
    children: ChildCountsSchema,
  },
  { additionalProperties: false },
);
export type WorkItemDetail = Static<typeof WorkItemDetailSchema>;

export const CreateWorkItemSchema = Type.Object(
  {
    type: WorkTypeSchema,
    description: DescriptionSchema,
    priority: Type.Optional(PrioritySchema),
    agent: Type.Optional(AgentNameSchema),
    project_id: Type.Optional(Nullable(UuidSchema)),
    payload: Type.Optional(Nullable(PayloadSchema)),
    parent_id: Type.Optional(Nullable(ParentIdSchema)),
    depends_on: Type.Optional(DependsOnSchema),
    run_after: Type.Optional(
      Type.String({ format: 'date-time', description: 'ISO 8601 with a zone; not claimable before then' }),
    ),
    max_attempts: Type.Optional(
      Type.Integer({
        minimum: ATTEMPT_LIMITS.min,
        maximum: ATTEMPT_LIMITS.max,
        description: 'Claims before it fails; default 3',
      }),
    ),
    retry_delay_s: Type.Optional(
      Type.Integer({
        minimum: RETRY_DELAY_LIMITS.min,
        maximum: RETRY_DELAY_LIMITS.max,
        description: 'Backoff after a lost lease: this × 2^(attempts−1) seconds, at most an hour; default 30',
      }),
    ),
    review_required: Type.Optional(ReviewRequiredSchema),
    watchers: Type.Optional(WatchersSchema),
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
    priority: Type.Optional(PrioritySchema),
    description: Type.Optional(DescriptionSchema),
    type: Type.Optional(WorkTypeSchema),
    project_id: Type.Optional(Nullable(UuidSchema)),
    payload: Type.Optional(Nullable(PayloadSchema)),
    review_required: Type.Optional(ReviewRequiredSchema),
    parent_id: Type.Optional(Nullable(ParentIdSchema)),
    depends_on: Type.Optional(DependsOnSchema),
    watchers: Type.Optional(WatchersSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWorkItem = Static<typeof UpdateWorkItemSchema>;

/** The filters the list and the counts share, so that a count is of the items the list shows. */
const filterFields = {
  agent: Type.Optional(AgentNameSchema),
  project_id: Type.Optional(UuidSchema),
  since: Type.Optional(
    Type.String({ format: 'date-time', description: 'ISO 8601 with a zone; items created strictly after' }),
  ),
  type: Type.Optional(WorkTypeSchema),
  parent_id: Type.Optional({ ...UuidSchema, description: 'Only the children of this item' }),
  ready: Type.Optional(
    Type.Enum(['true', 'false'], {
      description: 'true: claimable now (queued, due, every dependency completed); false: every other item',
    }),
  ),
};

export const ListWorkQuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: `One status or several, comma-separated: ${WORK_STATUSES.join(', ')}`,
      }),
    ),
    ...filterFields,
    created_by: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    updated_since: Type.Optional(
      Type.String({ format: 'date-time', description: 'ISO 8601 with a zone; items changed strictly after' }),
    ),
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
    review_required: Type.Boolean({
      description: "Whether the holder's completion of its items waits for a person's review",
    }),
    watchers: PeopleViewSchema,
    answer_within_s: Nullable(Type.Integer({ description: 'Open longer, a question or review is overdue' })),
    escalate_to: PeopleViewSchema,
  },
  { additionalProperties: false },
);
export type Project = Static<typeof ProjectSchema>;

const ProjectNameSchema = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const ExternalRefSchema = Type.String({ maxLength: 2_000 });

/** What a project says of the people told of its items' questions and reviews. */
const projectPeopleFields = {
  watchers: Type.Optional(
    peopleListSchema(
      PEOPLE_LIMITS.watchers,
      `People told of every question and review of its items (at most ${PEOPLE_LIMITS.watchers}); [] clears`,
    ),
  ),
  answer_within_s: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 60,
        maximum: 2_147_483_647,
        description: 'Seconds a question or review may stay open before it is overdue and escalated; null: never',
      }),
    ),
  ),
  escalate_to: Type.Optional(
    peopleListSchema(
      PEOPLE_LIMITS.escalate_to,
      `People told once a question or review is overdue (at most ${PEOPLE_LIMITS.escalate_to}); [] clears`,
    ),
  ),
};

export const CreateProjectSchema = Type.Object(
  {
    name: ProjectNameSchema,
    external_ref: Type.Optional(Nullable(ExternalRefSchema)),
    review_required: Type.Optional(Type.Boolean({ description: 'Default false' })),
    ...projectPeopleFields,
  },
  { additionalProperties: false },
);
export type CreateProject = Static<typeof CreateProjectSchema>;

export const UpdateProjectSchema = Type.Object(
  {
    name: Type.Optional(ProjectNameSchema),
    external_ref: Type.Optional(Nullable(ExternalRefSchema)),
    review_required: Type.Optional(Type.Boolean()),
    ...projectPeopleFields,
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateProject = Static<typeof UpdateProjectSchema>;

export const ProjectIdParamsSchema = Type.Object({ id: UuidSchema });

/** The agent a claim, heartbeat or move acts as; an agent token's own agent when left out. */
const ActingAgentSchema = Type.Optional({
  ...AgentNameSchema,
  description: "Agent username; an agent token's own agent when left out",
});

/**
 * The item a claim finishes first (the agent's last one): what `PATCH /work/{id}` with this
 * status (and its outcome, success or failed) and notes does, by the claiming agent; `version`
 * as an If-Match would.
 */
export const FinishSchema = Type.Object(
  {
    id: UuidSchema,
    status: Type.Enum(['completed', 'failed'], {
      description: 'completed (outcome success) or failed (outcome failed)',
    }),
    notes: Type.Optional(Nullable(NotesSchema)),
    version: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 999_999_999, description: 'Finish only at this version (412 otherwise)' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Finish this item first, as PATCH /work/{id} would; if that fails its problem is the answer and nothing is claimed',
  },
);
export type FinishRequest = Static<typeof FinishSchema>;

export const ClaimSchema = Type.Object(
  {
    agent: ActingAgentSchema,
    finish: Type.Optional(FinishSchema),
    types: Type.Optional(Type.Array(WorkTypeSchema, { minItems: 1, maxItems: 50, description: 'Any of these types' })),
    project_id: Type.Optional(UuidSchema),
    lease_s: Type.Optional(
      Type.Integer({ minimum: LEASE_LIMITS.min, maximum: LEASE_LIMITS.max, description: 'Lease length; default 300' }),
    ),
    wait_s: Type.Optional(
      Type.Integer({
        minimum: WAIT_LIMITS.min,
        maximum: WAIT_LIMITS.max,
        description: 'Long poll up to this long; default 0',
      }),
    ),
    start: Type.Optional(Type.Boolean({ description: 'Move the item to in_progress at once (default true)' })),
  },
  { additionalProperties: false },
);
/** A claim with its agent settled (the request's, or the agent token's). */
export type ClaimRequest = Static<typeof ClaimSchema> & { agent: string };

export const HeartbeatSchema = Type.Object(
  {
    agent: ActingAgentSchema,
    lease_s: Type.Optional(
      Type.Integer({
        minimum: LEASE_LIMITS.min,
        maximum: LEASE_LIMITS.max,
        description: 'New lease length; default: the current one',
      }),
    ),
  },
  { additionalProperties: false },
);
export type HeartbeatRequest = Static<typeof HeartbeatSchema> & { agent: string };

export const HistoryEntrySchema = Type.Object(
  {
    id: Type.Integer(),
    work_item_id: UuidSchema,
    at: TimestampSchema,
    actor: Type.String({
      description:
        'The token’s agent or name; with AUTH=off the holder for a call acting as it, else X-User or anonymous; agentdesk for the lease sweep',
    }),
    role: Type.String({ description: 'viewer, agent, member, intake, admin, or system' }),
    action: Type.String({
      description: `${CHANGE_ACTIONS.join(', ')}, or the move: ${MOVE_ACTIONS.join(', ')}; the conversation: ${CONVERSATION_ACTIONS.join(', ')}`,
    }),
    changes: Type.Record(Type.String(), Type.Unknown(), {
      description: 'field → {from, to} (payload: {edited: true})',
    }),
  },
  { additionalProperties: false },
);
export type HistoryEntry = Static<typeof HistoryEntrySchema>;

export const IfMatchHeadersSchema = Type.Object({
  'if-match': Type.Optional(
    Type.String({ description: 'The ETag the change was based on; 412 if the item changed since' }),
  ),
});
export const IfNoneMatchHeadersSchema = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'An ETag the caller holds; 304 while it is current' })),
});

/** The X-User header names the caller until authentication arrives. */
export const UserHeadersSchema = Type.Object({ 'x-user': Type.Optional(AgentNameSchema) });

export const SubmitHeadersSchema = Type.Object({
  'x-user': Type.Optional(AgentNameSchema),
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description: 'The same key with the same body within 24 hours answers the first response again',
    }),
  ),
});
