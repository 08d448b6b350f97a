import { ACCESS } from '../auth/contract.js';
import type { WorkClient } from '../client/work-client.js';
import type { Question } from '../conversation/contract.js';
import {
  AskInputSchema,
  CommentInputSchema,
  CommentOutputSchema,
  GetAnswerInputSchema,
  ProgressNoteInputSchema,
  QuestionOutputSchema,
  TOOL_WAIT_MAX_S,
} from './conversation-schemas.js';
import { withNextStep } from './questions.js';
import { CommentsOutputSchema, ListCommentsInputSchema } from './schemas.js';
import { ADDS, READS, type ToolDefinition, define } from './tools.js';

// The tools an agent talks to people with: a comment on the item's timeline, a progress note (a comment of
// kind progress; notes stay the human summary), a question to a person it can wait on, and reading its answer.

type Call = { signal: AbortSignal };

/**
 * The question as it stands after up to `wait_s` seconds for its answer, through the route's long poll, so an
 * answer given on any instance ends the wait at once. Never longer than an MCP host lets a call run
 * (TOOL_WAIT_MAX_S); the tool then says how to wait again.
 */
async function awaitAnswer(
  client: WorkClient,
  id: string,
  question: Question,
  wait_s: number,
  call: Call,
): Promise<Question> {
  if (question.status !== 'open' || wait_s === 0) return question;
  return client.getQuestion(id, question.id, { wait_s }, call);
}

export const CONVERSATION_TOOLS: readonly ToolDefinition[] = [
  define({
    name: 'add_note',
    title: 'Report progress',
    description:
      'Record progress on a work item (what you did, found or decided) as a progress comment on its timeline; its status does not change. Use add_comment for links, ask_person when you need an answer.',
    access: ACCESS.comment,
    input: ProgressNoteInputSchema,
    output: CommentOutputSchema,
    annotations: ADDS,
    run: ({ id, text }, { client, signal }) => client.addComment(id, { body: text, kind: 'progress' }, { signal }),
  }),
  define({
    name: 'add_comment',
    title: 'Comment on a work item',
    description:
      'Post a comment on a work item\'s timeline, for the people who follow it: kind "note" (default) or "progress", with up to 20 http(s) links (a pull request, a document). It asks nothing: use ask_person to get an answer.',
    access: ACCESS.comment,
    input: CommentInputSchema,
    output: CommentOutputSchema,
    annotations: ADDS,
    run: ({ id, ...body }, { client, signal }) => client.addComment(id, body, { signal }),
  }),
  define({
    name: 'list_comments',
    title: "Read a work item's comments",
    description:
      "Read the comments on a work item's timeline (people's and agents'), oldest first, or order newest for the latest first; a page at a time, next page with next_cursor.",
    access: ACCESS.read,
    input: ListCommentsInputSchema,
    output: CommentsOutputSchema,
    annotations: READS,
    async run({ id, ...query }, { client, signal }) {
      const page = await client.listComments(id, query, { signal });
      return { comments: page.comments, next_cursor: page.next_cursor };
    },
  }),
  define({
    name: 'ask_person',
    title: 'Ask a person',
    description:
      'Ask a person when you cannot go on without one: a missing fact, a decision with consequences, access you lack. Blocks the item until answered; give options when you can, `to` to name who is told ("@creator": whoever submitted the item, who may answer even as an agent). Waits up to wait_s.',
    access: ACCESS.comment,
    input: AskInputSchema,
    output: QuestionOutputSchema,
    annotations: ADDS,
    async run({ id, question, options, to, wait_s = TOOL_WAIT_MAX_S }, { client, signal }) {
      const asked = await client.askQuestion(
        id,
        { question, ...(options !== undefined && { options }), ...(to !== undefined && { to }) },
        { signal },
      );
      return withNextStep(await awaitAnswer(client, id, asked, wait_s, { signal }));
    },
  }),
  define({
    name: 'get_answer',
    title: 'Get the answer to a question',
    description:
      "Read a question you asked with ask_person (or the review complete_work sent the item to), waiting up to wait_s for a person's answer; answers it, open or answered, with what to do next.",
    access: ACCESS.read,
    input: GetAnswerInputSchema,
    output: QuestionOutputSchema,
    annotations: READS,
    async run({ id, question_id, wait_s = TOOL_WAIT_MAX_S }, { client, signal }) {
      return withNextStep(await client.getQuestion(id, question_id, { wait_s }, { signal }));
    },
  }),
];
