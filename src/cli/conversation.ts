import { type Command, Option } from 'commander';
import {
  type Comment,
  CONVERSATION_PAGE,
  type InboxQuery,
  type Question,
  QUESTION_WAIT_LIMITS,
} from '../conversation/contract.js';
import { openQuestionOf } from '../client/open-question.js';
import { type CliContext, UsageError } from './context.js';
import { commentBlocks, commentLine, questionDetail, questionTable } from './conversation-view.js';
import { json, paintFor } from './format.js';
import { integer, itemId, projectId } from './options.js';

// The conversation from a shell: `work comment` and `work comments`, `ask` (and wait), `inbox`, `answer`
// and `review`. `answer` and `review` take the item's id, the one a person sees on the board and
// in the inbox; the command finds the item's open question (there is at most one).

interface JsonOption {
  json?: boolean;
}

/** How long `ask --wait` may wait in all: the route waits at most 30 s a call, so longer waits are several. */
const MAX_ASK_WAIT_S = 3_600;

/** `--link` is repeatable; each is checked by the service (http or https, at most 2,048 characters). */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerConversationCommands(program: Command, work: Command, context: CliContext): void {
  const { io } = context;
  const paint = () => paintFor(io);
  const showQuestion = (question: Question, options: JsonOption) =>
    io.out(options.json ? json(question) : questionDetail(question, paint()));

  /** The item's open question, or a refusal naming the item (exit 1). */
  async function openQuestion(id: string, kind?: Question['kind']): Promise<Question> {
    const open = await openQuestionOf(context.work(), id);
    if (open === null)
      throw new Error(`work item ${id} has no open question${kind === 'review' ? ' (no review waits on it)' : ''}`);
    if (kind === 'review' && open.kind !== 'review') {
      throw new Error(`the open question on ${id} is a question, not a review: answer it with agentdesk answer`);
    }
    return open;
  }

  work
    .command('comment')
    .description('Comment on a work item: a note on its timeline (markdown, shown as text)')
    .argument('<id>', 'work item id', itemId)
    .argument('<text>', 'the comment (1–16,384 characters)')
    .option('--link <url>', 'an http(s) link to attach (repeatable, at most 20)', collect)
    .addOption(new Option('--kind <kind>', 'note (default) or progress').choices(['note', 'progress']))
    .option('--json', 'the comment as JSON')
    .action(async (id: string, text: string, options: JsonOption & { link?: string[]; kind?: 'note' | 'progress' }) => {
      const comment = await context.work().addComment(id, {
        body: text,
        ...(options.kind !== undefined && { kind: options.kind }),
        ...(options.link !== undefined && { links: options.link.map((url) => ({ url })) }),
      });
      io.out(options.json ? json(comment) : commentLine(comment, paint()));
    });

  work
    .command('comments')
    .description("A work item's comments in full, oldest first: what people and agents said on it")
    .argument('<id>', 'work item id', itemId)
    .option('--latest <n>', 'only the n latest (still shown oldest first)', integer(1, CONVERSATION_PAGE.max))
    .option('--json', 'the comments as a JSON array, oldest first')
    .action(async (id: string, options: JsonOption & { latest?: number }) => {
      const comments: Comment[] = [];
      if (options.latest !== undefined) {
        comments.push(
          ...(await context.work().listComments(id, { order: 'newest', limit: options.latest })).comments.reverse(),
        );
      } else {
        let page = await context.work().listComments(id, { limit: CONVERSATION_PAGE.max });
        comments.push(...page.comments);
        while (page.next_cursor) {
          page = await context.work().listComments(id, { limit: CONVERSATION_PAGE.max, cursor: page.next_cursor });
          comments.push(...page.comments);
        }
      }
      io.out(options.json ? json(comments) : commentBlocks(comments, paint()));
    });

  program
    .command('ask')
    .description('Ask a person about a work item you hold: it waits, blocked, until answered')
    .argument('<id>', 'work item id', itemId)
    .argument('<question>', 'the question (1–4,000 characters)')
    .option('--option <choice>', 'an answer to offer (repeatable, 2–10 of them)', collect)
    .option(
      '--to <person>',
      "a person to tell (repeatable, at most 10; @creator: the item's creator, even an agent); default: the item's watchers and creator",
      collect,
    )
    .option('--wait <seconds>', `wait up to this long for the answer (0–${MAX_ASK_WAIT_S})`, integer(0, MAX_ASK_WAIT_S))
    .option('--json', 'the question as JSON (answered or still open)')
    .action(
      async (id: string, text: string, options: JsonOption & { option?: string[]; to?: string[]; wait?: number }) => {
        const client = context.work();
        let question = await client.askQuestion(id, {
          question: text,
          ...(options.option !== undefined && { options: options.option }),
          ...(options.to !== undefined && { to: options.to }),
        });
        // Several waits of at most the route's limit, each answered at once when the answer comes.
        const until = Date.now() + (options.wait ?? 0) * 1_000;
        while (question.status === 'open' && Date.now() < until) {
          const wait_s = Math.min(QUESTION_WAIT_LIMITS.max, Math.ceil((until - Date.now()) / 1_000));
          question = await client.getQuestion(id, question.id, { wait_s });
        }
        showQuestion(question, options);
        if (question.status === 'open' && options.wait !== undefined)
          io.err('No answer yet: the item stays blocked until a person answers.\n');
      },
    );

  program
    .command('inbox')
    .description('Questions and reviews waiting for a person, oldest first (--answered: answered ones, newest first)')
    .option('--answered', 'answered questions instead of open ones')
    .option('--project <project>', 'in this project (id or name)')
    .option('--agent <agent>', 'asked by or waiting with this agent')
    .option('--overdue', 'only those open past their deadline (the project’s answer_within_s)')
    .option('--limit <n>', 'at most this many per page (1–200)', integer(1, 200))
    .option('--cursor <cursor>', 'the next page, from a previous listing')
    .option('--all', 'follow every page')
    .option('--json', 'a JSON array of the questions')
    .action(
      async (
        options: JsonOption & {
          answered?: boolean;
          project?: string;
          agent?: string;
          overdue?: boolean;
          limit?: number;
          cursor?: string;
          all?: boolean;
        },
      ) => {
        const client = context.work();
        const query: InboxQuery = {
          status: options.answered ? 'answered' : 'open',
          ...(options.project !== undefined && { project_id: await projectId(context, options.project) }),
          ...(options.agent !== undefined && { agent: options.agent }),
          ...(options.overdue === true && { overdue: true }),
          ...(options.limit !== undefined && { limit: options.limit }),
          ...(options.cursor !== undefined && { cursor: options.cursor }),
        };
        let page = await client.listQuestions(query);
        const questions = [...page.entries];
        while (options.all && page.next_cursor) {
          page = await client.listQuestions({ ...query, cursor: page.next_cursor });
          questions.push(...page.entries);
        }
        io.out(options.json ? json(questions) : questionTable(questions, paint(), options.answered === true));
        if (page.next_cursor) io.err(`More questions: add --cursor ${page.next_cursor} (or --all).\n`);
      },
    );

  program
    .command('answer')
    .description(
      'Answer the open question on a work item: with --option when it offers options, else the text; the agent carries on',
    )
    .argument('<id>', 'work item id (the inbox lists them)', itemId)
    .argument('[text]', 'the answer (with --option: an optional comment)')
    .option('--option <choice>', 'one of the options the question offers')
    .option('--json', 'the answered question as JSON')
    .action(async (id: string, text: string | undefined, options: JsonOption & { option?: string }) => {
      if (text === undefined && options.option === undefined) {
        throw new UsageError('give the answer as text, or --option with one of the offered options');
      }
      const open = await openQuestion(id);
      const answered = await context.work().answerQuestion(id, open.id, {
        ...(text !== undefined && { answer: text }),
        ...(options.option !== undefined && { option: options.option }),
      });
      showQuestion(answered, options);
    });

  program
    .command('review')
    .description(
      'Pass the review a work item waits for: --approve completes it, --return sends it back to its agent with why',
    )
    .argument('<id>', 'work item id', itemId)
    .option('--approve', 'approve: the item is completed')
    .option('--return <why>', 'return it to its agent, saying why')
    .option('--json', 'the answered review as JSON')
    .action(async (id: string, options: JsonOption & { approve?: boolean; return?: string }) => {
      if ((options.approve === true) === (options.return !== undefined))
        throw new UsageError('give exactly one of --approve or --return <why>');
      const open = await openQuestion(id, 'review');
      const answered = await context
        .work()
        .answerQuestion(
          id,
          open.id,
          options.approve ? { option: 'approve' } : { option: 'return', answer: options.return as string },
        );
      showQuestion(answered, options);
    });
}
