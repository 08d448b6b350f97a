import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema, UuidSchema } from '../shared/http/schemas.js';
import { PEOPLE_LIMITS, peopleListSchema } from '../work/contract.js';

// The conversation's shapes on the wire: comments on an item's timeline, questions
// a person answers (reviews among them), the inbox of questions. snake_case as everywhere.

export const COMMENT_KINDS = ['note', 'progress', 'question', 'answer', 'email'] as const;
export type CommentKind = (typeof COMMENT_KINDS)[number];
/** The kinds a caller may post; the others are written by asking, answering and mail intake. */
export const POSTED_COMMENT_KINDS = ['note', 'progress'] as const;

export const QUESTION_KINDS = ['question', 'review'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];
/** moot: closed unanswered, because its item reached a final status while it was open. */
export const QUESTION_STATUSES = ['open', 'answered', 'moot'] as const;
export type QuestionStatus = (typeof QUESTION_STATUSES)[number];
/** What the inbox lists: a moot question waits for no one. */
export const INBOX_STATUSES = ['open', 'answered'] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

/** How an answer came: through the API (the desk's pages, the CLI, MCP), a reply by email, or a signed link. */
export const ANSWER_VIA = ['api', 'email', 'link'] as const;
export type AnswerVia = (typeof ANSWER_VIA)[number];

/**
 * The `to` entry that addresses a question to its item's creator (`created_by`), whatever its
 * role: that creator may answer it even as an agent (questions.ts), and is told of it as if named.
 */
export const CREATOR = '@creator';

/** A review's two answers. */
export const REVIEW_OPTIONS = { approve: 'approve', return: 'return' } as const;

export const COMMENT_LIMITS = { body: 16_384, links: 20, url: 2_048, title: 200 } as const;
export const QUESTION_LIMITS = { text: 4_000, minOptions: 2, maxOptions: 10, option: 200 } as const;
export const QUESTION_WAIT_LIMITS = { min: 0, max: 30 } as const;
export const CONVERSATION_PAGE = { default: 50, max: 200 } as const;

export const LinkSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: COMMENT_LIMITS.url, description: 'http or https only' }),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: COMMENT_LIMITS.title })),
  },
  { additionalProperties: false },
);
export type Link = Static<typeof LinkSchema>;

export const CommentSchema = Type.Object(
  {
    id: UuidSchema,
    work_item_id: UuidSchema,
    author: Type.String(),
    role: Type.String({
      description:
        'The author’s role: agent, member, intake, admin, or system (a note by the desk itself, e.g. a failed dependency)',
    }),
    kind: Type.Enum([...COMMENT_KINDS]),
    body: Type.String({ description: 'Markdown, always shown as text' }),
    links: Type.Array(LinkSchema),
    created_at: TimestampSchema,
  },
  { additionalProperties: false },
);
export type Comment = Static<typeof CommentSchema>;

export const CreateCommentSchema = Type.Object(
  {
    body: Type.String({ minLength: 1, maxLength: COMMENT_LIMITS.body, pattern: '\\S' }),
    kind: Type.Optional(Type.Enum([...POSTED_COMMENT_KINDS], { description: 'note (default) or progress' })),
    links: Type.Optional(Type.Array(LinkSchema, { maxItems: COMMENT_LIMITS.links })),
  },
  { additionalProperties: false },
);
export type CreateComment = Static<typeof CreateCommentSchema>;

export const PageQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE.max, default: CONVERSATION_PAGE.default }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Opaque; from the Link header' })),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuerySchema>;

export const COMMENT_ORDERS = ['oldest', 'newest'] as const;
export type CommentOrder = (typeof COMMENT_ORDERS)[number];

export const CommentsQuerySchema = Type.Object(
  {
    ...PageQuerySchema.properties,
    order: Type.Optional(
      Type.Enum([...COMMENT_ORDERS], {
        default: 'oldest',
        description: 'oldest first (the timeline), or newest first (the latest comments)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CommentsQuery = Static<typeof CommentsQuerySchema>;

export const QuestionSchema = Type.Object(
  {
    id: UuidSchema,
    work_item_id: UuidSchema,
    kind: Type.Enum([...QUESTION_KINDS], { description: 'question, or review (options approve and return)' }),
    asked_by: Type.String(),
    question: Type.String(),
    options: Nullable(Type.Array(Type.String())),
    status: Type.Enum([...QUESTION_STATUSES], {
      description: 'open, answered, or moot (closed unanswered: its item completed, failed or was cancelled)',
    }),
    asked_at: TimestampSchema,
    answer: Nullable(Type.String()),
    option: Nullable(Type.String()),
    answered_by: Nullable(Type.String()),
    answered_at: Nullable(TimestampSchema),
    to: Nullable(
      Type.Array(Type.String(), {
        description: `The people the question named ("${CREATOR}": the item's creator); null: its watchers and creator`,
      }),
    ),
    via: Nullable(
      Type.Enum([...ANSWER_VIA], {
        description: 'How the answer came: api, email (a reply) or link (a signed answer link); null while open',
      }),
    ),
    due_at: {
      ...Nullable(TimestampSchema),
      description: "Open past this it is overdue: asked_at plus its project's answer_within_s when asked; null: never",
    },
    overdue: Type.Boolean({ description: 'Open past due_at' }),
  },
  { additionalProperties: false },
);
export type Question = Static<typeof QuestionSchema>;

const OptionSchema = Type.String({ minLength: 1, maxLength: QUESTION_LIMITS.option, pattern: '\\S' });

export const AskSchema = Type.Object(
  {
    question: Type.String({ minLength: 1, maxLength: QUESTION_LIMITS.text, pattern: '\\S' }),
    options: Type.Optional(
      Type.Array(OptionSchema, {
        minItems: QUESTION_LIMITS.minOptions,
        maxItems: QUESTION_LIMITS.maxOptions,
        uniqueItems: true,
        description: '2–10 distinct choices; the answer picks one',
      }),
    ),
    to: Type.Optional({
      ...peopleListSchema(
        PEOPLE_LIMITS.to,
        `The people to tell (1 to ${PEOPLE_LIMITS.to}); "${CREATOR}": the item's creator, who may then answer even as an agent; left out: the item's and its project's watchers and its creator`,
      ),
      minItems: 1,
    }),
  },
  { additionalProperties: false },
);
export type Ask = Static<typeof AskSchema>;

export const AnswerSchema = Type.Object(
  {
    answer: Type.Optional(Type.String({ minLength: 1, maxLength: QUESTION_LIMITS.text, pattern: '\\S' })),
    option: Type.Optional(OptionSchema),
  },
  { additionalProperties: false },
);
export type Answer = Static<typeof AnswerSchema>;

export const WaitQuerySchema = Type.Object(
  {
    wait_s: Type.Optional(
      Type.Integer({
        minimum: QUESTION_WAIT_LIMITS.min,
        maximum: QUESTION_WAIT_LIMITS.max,
        description: 'Wait up to this long for the answer; default 0',
      }),
    ),
  },
  { additionalProperties: false },
);

export const InboxQuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Enum([...INBOX_STATUSES], { description: 'open (default, oldest first) or answered (newest first)' }),
    ),
    project_id: Type.Optional(UuidSchema),
    agent: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9_.@-]+$',
        description: 'The agent the item waits with',
      }),
    ),
    overdue: Type.Optional(
      Type.Boolean({ description: 'true: only open ones past their due_at; false: only those not (yet) overdue' }),
    ),
    ...PageQuerySchema.properties,
  },
  { additionalProperties: false },
);
export type InboxQuery = Static<typeof InboxQuerySchema>;

export const InboxEntrySchema = Type.Object(
  {
    ...QuestionSchema.properties,
    item: Type.Object(
      {
        id: UuidSchema,
        description: Type.String(),
        priority: Type.Integer(),
        project_id: Nullable(UuidSchema),
        type: Type.String(),
        status: Type.String(),
        assigned_agent: Nullable(Type.String()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type InboxEntry = Static<typeof InboxEntrySchema>;

export const QuestionCountsSchema = Type.Object(
  { open: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);

export const CommentParamsSchema = Type.Object({ id: UuidSchema, comment_id: UuidSchema });
export const QuestionParamsSchema = Type.Object({ id: UuidSchema, question_id: UuidSchema });
