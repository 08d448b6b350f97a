import { Type } from 'typebox';
import { AskSchema, CommentSchema, CreateCommentSchema, QuestionSchema } from '../conversation/contract.js';
import { WorkItemSchema } from '../work/contract.js';

// The conversation tools' input and output schemas, made from the API's own schemas as schemas.ts does for the
// work tools, so a tool refuses exactly what the route behind it would.

const IdSchema = Type.String({ format: 'uuid', description: 'The work item id' });
const QuestionIdSchema = Type.String({ format: 'uuid', description: 'The question id (from ask_person)' });

/**
 * How long a tool waits for a person. Below the route's 30 s: MCP hosts commonly give a tool call
 * 30–60 s before they give up on it, and an answer that comes back after the host stopped
 * listening is lost to the model (the question stays answered; get_answer reads it again).
 */
export const TOOL_WAIT_MAX_S = 25;

const WaitSchema = Type.Integer({
  minimum: 0,
  maximum: TOOL_WAIT_MAX_S,
  description: `Seconds to wait for the answer (0–${TOOL_WAIT_MAX_S}); 0 reads the question at once`,
});

export const CommentInputSchema = Type.Object(
  {
    id: IdSchema,
    body: CreateCommentSchema.properties.body,
    kind: CreateCommentSchema.properties.kind,
    links: CreateCommentSchema.properties.links,
  },
  { additionalProperties: false },
);

export const ProgressNoteInputSchema = Type.Object(
  {
    id: IdSchema,
    text: {
      ...CreateCommentSchema.properties.body,
      description: 'What you did or found; posted as a progress comment',
    },
  },
  { additionalProperties: false },
);

export const AskInputSchema = Type.Object(
  {
    id: IdSchema,
    question: AskSchema.properties.question,
    options: AskSchema.properties.options,
    to: AskSchema.properties.to,
    wait_s: Type.Optional({ ...WaitSchema, default: TOOL_WAIT_MAX_S }),
  },
  { additionalProperties: false },
);

export const GetAnswerInputSchema = Type.Object(
  { id: IdSchema, question_id: QuestionIdSchema, wait_s: Type.Optional({ ...WaitSchema, default: TOOL_WAIT_MAX_S }) },
  { additionalProperties: false },
);

export const CommentOutputSchema = CommentSchema;

/** A question, answered or still open, and what to do next. */
export const QuestionOutputSchema = Type.Object(
  {
    ...QuestionSchema.properties,
    next_step: Type.String({ description: 'What to do next' }),
  },
  { additionalProperties: false },
);

/** complete_work: the item; when it was sent for review instead, that review too. */
export const CompleteOutputSchema = Type.Object(
  {
    ...WorkItemSchema.properties,
    review: Type.Optional(QuestionSchema),
    next_step: Type.Optional(Type.String({ description: 'What to do next' })),
  },
  { additionalProperties: false },
);
