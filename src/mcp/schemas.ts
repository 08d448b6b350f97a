import { SearchQuerySchema, SearchResultSchema } from '../search/contract.js';
import { type TObject, type TProperties, Type } from 'typebox';
import { CommentSchema, CommentsQuerySchema, CONVERSATION_PAGE } from '../conversation/contract.js';
import { Nullable, TimestampSchema } from '../shared/http/schemas.js';
import {
  ClaimSchema,
  CreateWorkItemSchema,
  HeartbeatSchema,
  ListWorkQuerySchema,
  NotesSchema,
  ProjectSchema,
  WorkItemDetailSchema,
  WorkItemSchema,
  WorkItemSummarySchema,
  PlanParentSchema,
  PlanStepSchema,
  MAX_PLAN_STEPS,
  SubmittedPlanSchema,
} from '../work/contract.js';

// The tools' input and output schemas, made from the API's own TypeBox schemas: an argument has
// the API's name, bounds and description, and an answer is the API's answer. Only what the MCP
// layer adds (the version guard, the note texts, the paging wrapper) is written here.

/** The named fields of an object schema, as a closed object: unknown arguments are refused. */
function fieldsOf<T extends TProperties, K extends keyof T & string>(schema: TObject<T>, keys: readonly K[]) {
  const picked = Object.fromEntries(keys.map((key) => [key, schema.properties[key]])) as Pick<T, K>;
  return picked;
}

function closed<T extends TProperties>(properties: T) {
  return Type.Object(properties, { additionalProperties: false });
}

const IdSchema = Type.String({ format: 'uuid', description: 'The work item id' });

const VersionSchema = Type.Integer({
  minimum: 1,
  description:
    'The version of the item you decided on (from get_work_item); refused if it changed since. Omit to act on the latest.',
});

/** A note is bounded like the notes it joins (which the service also checks once joined). */
const NOTE_MAX_LENGTH = (NotesSchema as unknown as { maxLength: number }).maxLength;
const ReasonSchema = Type.String({ minLength: 1, maxLength: NOTE_MAX_LENGTH, pattern: '\\S' });

export const ClaimInputSchema = closed(fieldsOf(ClaimSchema, ['wait_s', 'types', 'project_id', 'lease_s']));
export const HeartbeatInputSchema = closed({ id: IdSchema, ...fieldsOf(HeartbeatSchema, ['lease_s']) });
export const IdInputSchema = closed({ id: IdSchema });
export const StartInputSchema = closed({ id: IdSchema, version: Type.Optional(VersionSchema) });

export const BlockInputSchema = closed({
  id: IdSchema,
  reason: { ...ReasonSchema, description: 'What you are waiting for; appended to the notes' },
  version: Type.Optional(VersionSchema),
});

export const CompleteInputSchema = closed({
  id: IdSchema,
  notes: Type.Optional({ ...ReasonSchema, description: 'What you did; appended to the notes' }),
  result: Type.Optional(
    Type.Object(
      {},
      { additionalProperties: true, description: "Your result; merged into the payload's `result` object" },
    ),
  ),
  version: Type.Optional(VersionSchema),
});

export const FailInputSchema = closed({
  id: IdSchema,
  reason: { ...ReasonSchema, description: 'Why it failed; appended to the notes' },
  version: Type.Optional(VersionSchema),
});

export const NoteInputSchema = closed({
  id: IdSchema,
  text: { ...ReasonSchema, description: 'The note; appended below the existing notes' },
  version: Type.Optional(VersionSchema),
});

/** An LLM reads every item of a page: a smaller default page than the API's. */
export const MCP_PAGE_SIZE = 25;

export const ListInputSchema = closed({
  ...ListWorkQuerySchema.properties,
  limit: Type.Optional({ ...ListWorkQuerySchema.properties.limit, default: MCP_PAGE_SIZE }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page' })),
});

const IdempotencyKeySchema = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7e]+$',
  description: 'Send the same key when you retry: the first answer is given again, nothing is created twice',
});

export const SubmitInputSchema = closed({
  ...fieldsOf(CreateWorkItemSchema, [
    'type',
    'description',
    'priority',
    'project_id',
    'payload',
    'parent_id',
    'depends_on',
    'run_after',
    'max_attempts',
    'retry_delay_s',
  ]),
  idempotency_key: Type.Optional(IdempotencyKeySchema),
});

export const SubmitPlanInputSchema = closed({
  parent: PlanParentSchema,
  steps: Type.Array(PlanStepSchema, {
    minItems: 1,
    maxItems: MAX_PLAN_STEPS,
    description: 'The steps, children of the parent; a step waits for the steps named in its depends_on_keys',
  }),
  idempotency_key: Type.Optional(IdempotencyKeySchema),
});

export const ChildrenInputSchema = closed({
  id: { ...IdSchema, description: 'The parent work item id' },
  ...fieldsOf(ListInputSchema, ['status', 'ready', 'limit', 'cursor']),
});

export const EmptyInputSchema = closed({});

// Outputs. An output schema must describe an object; an item is answered with its own fields.

export const ItemOutputSchema = WorkItemSchema;

export const NoWorkSchema = closed({
  claimed: Type.Literal(false),
  detail: Type.String({ description: 'What to do next' }),
});

/** A claim answers the item, or `claimed: false` when there was nothing to claim. */
export const ClaimOutputSchema = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  anyOf: [WorkItemSchema, NoWorkSchema],
});

/**
 * One entry of an item's history: from GET /work/{id}/history where the service has it (its
 * entries carry more fields), else made from the dispatch log.
 */
export const HistoryEntrySchema = Type.Object(
  {
    at: TimestampSchema,
    actor: Type.String({ description: 'Who acted' }),
    action: Type.String({ description: 'What happened: claimed, block, complete, dispatched, …' }),
  },
  { additionalProperties: true },
);

/** How many of an item's comments get_work_item and the item resource carry: the latest. */
export const LATEST_COMMENTS = 10;

const LatestCommentsSchema = Type.Array(CommentSchema, {
  maxItems: LATEST_COMMENTS,
  description: `The ${LATEST_COMMENTS} latest comments (people's included), newest first; comment_count says how many there are, list_comments reads them all`,
});

export const ItemWithHistorySchema = closed({
  ...WorkItemDetailSchema.properties,
  latest_comments: LatestCommentsSchema,
  history: Type.Array(HistoryEntrySchema, { description: 'Oldest first' }),
  history_source: Type.Union([Type.Literal('history'), Type.Literal('dispatch_log')], {
    description: 'history: every change; dispatch_log: only dispatches (this service keeps no full history)',
  }),
});

export const ListCommentsInputSchema = closed({
  id: IdSchema,
  order: CommentsQuerySchema.properties.order,
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE.max, default: CONVERSATION_PAGE.default }),
  ),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page' })),
});

export const CommentsOutputSchema = closed({
  comments: Type.Array(CommentSchema),
  next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last one' })),
});

export const PageOutputSchema = closed({
  items: Type.Array(WorkItemSummarySchema),
  next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last one' })),
});

export const PlanOutputSchema = SubmittedPlanSchema;

export const SearchInputSchema = closed({
  ...SearchQuerySchema.properties,
  limit: Type.Optional({ ...SearchQuerySchema.properties.limit, default: MCP_PAGE_SIZE }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page' })),
});

export const SearchOutputSchema = closed({
  results: Type.Array(SearchResultSchema),
  next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last one' })),
});

export const ProjectsOutputSchema = closed({ projects: Type.Array(ProjectSchema) });
