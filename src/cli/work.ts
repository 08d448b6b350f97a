import { type Command, Option } from 'commander';
import {
  type ListWorkQuery,
  type UpdateWorkItem,
  type WorkItem,
  type WorkItemSummary,
  LEASE_LIMITS,
  MAX_PAGE_SIZE,
  SORT_ORDERS,
  WAIT_LIMITS,
  WORK_STATUSES,
  MOVES,
  patchForMove,
} from '../work/contract.js';
import type { CliContext } from './context.js';
import { json, paintFor } from './format.js';
import { integer, itemId, itemIds, list, projectId, readPayload } from './options.js';
import { workTreeText } from './work-tree.js';
import { latestCommentsText } from './conversation-view.js';
import { workDetail, workLine, workTable } from './work-view.js';

// `agentdesk work …`: the work API from a shell, through the typed client.

/** The lifecycle moves the CLI names, and the change each one asks for. */
const VERBS = {
  start: { summary: 'Start (or resume) an item dispatched to you', change: patchForMove(MOVES.pick_up) },
  block: { summary: 'Block an item in progress (say why with --notes)', change: patchForMove(MOVES.block) },
  complete: { summary: 'Complete an item in progress', change: patchForMove(MOVES.complete) },
  fail: { summary: 'Fail an item in progress or blocked', change: patchForMove(MOVES.fail) },
  cancel: { summary: 'Cancel an item not yet started', change: patchForMove(MOVES.cancel) },
} as const satisfies Record<string, { summary: string; change: UpdateWorkItem }>;

/** What a completion that needs a person's review becomes: the item waits, blocked, for that review. */
const SENT_FOR_REVIEW = (id: string) =>
  `Sent ${id} for review: a person approves it (it completes) or returns it to you.\n`;

/** How many comments `work show` carries: the latest, so a person's word reaches whoever reads the item. */
const SHOWN_COMMENTS = 10;

interface JsonOption {
  json?: boolean;
}

export function registerWorkCommand(program: Command, context: CliContext): Command {
  const { io } = context;
  const paint = () => paintFor(io);
  const show = (item: WorkItem, options: JsonOption) => io.out(options.json ? json(item) : workLine(item, paint()));
  const work = program
    .command('work')
    .description('Work items: list, show, submit, claim and move them (AGENTDESK_URL)');

  work
    .command('ls')
    .alias('list')
    .description('List work items, newest first (or in queue order with --sort priority)')
    .option('--status <statuses>', `one or more of ${WORK_STATUSES.join(', ')} (comma-separated or repeated)`, list)
    .option('--agent <agent>', 'assigned to this agent')
    .option('--type <type>', 'of this type')
    .option('--project <project>', 'in this project (id or name)')
    .option('--created-by <name>', 'submitted by')
    .option('--parent <id>', 'children of this item', itemId)
    .option('--ready', 'only items claimable now (queued, due, every dependency completed)')
    .addOption(new Option('--sort <order>', 'newest or priority').choices([...SORT_ORDERS]))
    .option('--limit <n>', `at most this many per page (1–${MAX_PAGE_SIZE})`, integer(1, MAX_PAGE_SIZE))
    .option('--cursor <cursor>', 'the next page, from a previous listing')
    .option('--all', 'follow every page')
    .option('--json', 'a JSON array of the items')
    .action(
      async (
        options: JsonOption & {
          status?: string[];
          agent?: string;
          type?: string;
          project?: string;
          createdBy?: string;
          parent?: string;
          ready?: boolean;
          sort?: ListWorkQuery['sort'];
          limit?: number;
          cursor?: string;
          all?: boolean;
        },
      ) => {
        const query: ListWorkQuery = {
          status: options.status?.join(','),
          agent: options.agent,
          type: options.type,
          project_id: options.project === undefined ? undefined : await projectId(context, options.project),
          created_by: options.createdBy,
          ...(options.parent !== undefined && { parent_id: options.parent }),
          ...(options.ready && { ready: 'true' as const }),
          sort: options.sort,
          limit: options.limit,
          cursor: options.cursor,
        };
        const items: WorkItemSummary[] = [];
        let page = await context.work().listWork(query);
        items.push(...page.items);
        while (options.all && page.next_cursor) {
          page = await context.work().listWork({ ...query, cursor: page.next_cursor });
          items.push(...page.items);
        }
        io.out(options.json ? json(items) : workTable(items, paint()));
        if (page.next_cursor) io.err(`More items: add --cursor ${page.next_cursor} (or --all).\n`);
      },
    );

  work
    .command('show')
    .description(`One work item with its notes, payload, dispatch history and ${SHOWN_COMMENTS} latest comments`)
    .argument('<id>', 'work item id', itemId)
    .option('--json', 'the item as JSON, with latest_comments (newest first)')
    .action(async (id: string, options: JsonOption) => {
      const item = await context.work().getWork(id);
      const { comments } = await context.work().listComments(id, { order: 'newest', limit: SHOWN_COMMENTS });
      io.out(
        options.json
          ? json({ ...item, latest_comments: comments })
          : workDetail(item, paint()) + latestCommentsText(comments, item.comment_count, item.id, paint()),
      );
    });

  work
    .command('tree')
    .description('An item and its sub-items, as a tree with their statuses')
    .argument('<id>', 'work item id', itemId)
    .option('--depth <n>', 'levels below the item to show; default 8', integer(1, 8))
    .option('--json', 'the tree as JSON: {item, children, truncated}')
    .action(async (id: string, options: JsonOption & { depth?: number }) => {
      const tree = await context.work().tree(id, { ...(options.depth !== undefined && { depth: options.depth }) });
      io.out(options.json ? json(tree) : workTreeText(tree, paint()));
    });

  work
    .command('submit')
    .description('Submit a work item; with --agent it is dispatched at once')
    .requiredOption('--type <type>', 'work category, e.g. code_review')
    .requiredOption('--description <text>', 'what is to be done')
    .option('--priority <n>', '1 (highest) to 5; default 3', integer(1, 5))
    .option('--agent <agent>', 'dispatch it to this agent')
    .option('--project <project>', 'project id or name')
    .option('--payload <json>', 'type-specific data: inline JSON, @file.json, or @- for stdin')
    .option('--run-after <time>', 'ISO 8601 time with a zone; not claimable before then')
    .option('--max-attempts <n>', 'claims before it fails; default 3', integer(1, 100))
    .option('--parent <id>', 'a sub-item of this item', itemId)
    .option('--after <ids>', 'not claimable before these items complete (comma-separated or repeated)', itemIds)
    .option('--idempotency-key <key>', 'submitting again with the same key and body answers the first item')
    .option('--json', 'the item as JSON')
    .action(
      async (
        options: JsonOption & {
          type: string;
          description: string;
          priority?: number;
          agent?: string;
          project?: string;
          payload?: string;
          runAfter?: string;
          maxAttempts?: number;
          parent?: string;
          after?: string[];
          idempotencyKey?: string;
        },
      ) => {
        const item = await context.work().submitWork(
          {
            type: options.type,
            description: options.description,
            ...(options.priority !== undefined && { priority: options.priority }),
            ...(options.agent !== undefined && { agent: options.agent }),
            ...(options.project !== undefined && { project_id: await projectId(context, options.project) }),
            ...(options.payload !== undefined && { payload: await readPayload(io, options.payload) }),
            ...(options.runAfter !== undefined && { run_after: options.runAfter }),
            ...(options.maxAttempts !== undefined && { max_attempts: options.maxAttempts }),
            ...(options.parent !== undefined && { parent_id: options.parent }),
            ...(options.after !== undefined && { depends_on: options.after }),
          },
          { idempotencyKey: options.idempotencyKey },
        );
        show(item, options);
      },
    );

  work
    .command('claim')
    .description('Claim the next item for your agent, on a lease (your dispatched items first, then the queue)')
    .option('--type <types>', 'only these types (comma-separated or repeated)', list)
    .option('--project <project>', 'only this project (id or name)')
    .option(
      '--wait <seconds>',
      `wait up to this long for one (${WAIT_LIMITS.min}–${WAIT_LIMITS.max})`,
      integer(WAIT_LIMITS.min, WAIT_LIMITS.max),
    )
    .option(
      '--lease <seconds>',
      `lease length; default ${LEASE_LIMITS.default}`,
      integer(LEASE_LIMITS.min, LEASE_LIMITS.max),
    )
    .option('--no-start', 'leave it dispatched rather than in progress')
    .option('--finish <id>', 'complete this item of yours first, in the same request (as work complete)', itemId)
    .option('--agent <agent>', 'the agent to claim for (default: the token’s agent, or AGENTDESK_AGENT)')
    .option('--json', 'the item as JSON, or null when there is none')
    .action(
      async (
        options: JsonOption & {
          finish?: string;
          type?: string[];
          project?: string;
          wait?: number;
          lease?: number;
          start: boolean;
          agent?: string;
        },
      ) => {
        const agent = await context.agent(options.agent);
        const client = context.work();
        const item = await client.claimWork({
          agent,
          ...(options.type !== undefined && { types: options.type }),
          ...(options.project !== undefined && { project_id: await projectId(context, options.project) }),
          ...(options.wait !== undefined && { wait_s: options.wait }),
          ...(options.lease !== undefined && { lease_s: options.lease }),
          start: options.start,
          ...(options.finish !== undefined && { finish: { id: options.finish, status: 'completed' } }),
        });
        // The claim answers only the next item: whether the finished one went for review is its own.
        if (options.finish !== undefined && (await client.getWork(options.finish)).status === 'blocked')
          io.err(SENT_FOR_REVIEW(options.finish));
        if (item) return show(item, options);
        // Nothing to do is an answer, not a failure: exit 0.
        if (options.json) io.out('null\n');
        io.err(`Nothing to claim for ${agent}.\n`);
      },
    );

  work
    .command('heartbeat')
    .description('Extend your lease on an item you hold')
    .argument('<id>', 'work item id', itemId)
    .option(
      '--lease <seconds>',
      'new lease length; default: the current one',
      integer(LEASE_LIMITS.min, LEASE_LIMITS.max),
    )
    .option('--agent <agent>', 'the agent holding it (default: the token’s agent, or AGENTDESK_AGENT)')
    .option('--json', 'the item as JSON')
    .action(async (id: string, options: JsonOption & { lease?: number; agent?: string }) => {
      const agent = await context.agent(options.agent);
      show(
        await context.work().heartbeat(id, { agent, ...(options.lease !== undefined && { lease_s: options.lease }) }),
        options,
      );
    });

  for (const [name, move] of Object.entries(VERBS)) {
    work
      .command(name)
      .description(move.summary)
      .argument('<id>', 'work item id', itemId)
      .option('--notes <text>', 'added below the item’s notes in the same change')
      .option('--json', 'the item as JSON')
      .action(async (id: string, options: JsonOption & { notes?: string }) => {
        const client = context.work();
        const item =
          options.notes === undefined
            ? await client.updateWork(id, move.change)
            : await client.appendNote(id, options.notes, move.change);
        show(item, options);
        // A completion the item needs a person's review for leaves it blocked, waiting for that review.
        if (name === 'complete' && item.status === 'blocked') io.err(SENT_FOR_REVIEW(id));
      });
  }

  work
    .command('note')
    .description('Add a note below an item’s notes (a concurrent note is never overwritten)')
    .argument('<id>', 'work item id', itemId)
    .argument('<text>', 'the note')
    .option('--json', 'the item as JSON')
    .action(async (id: string, text: string, options: JsonOption) => {
      show(await context.work().appendNote(id, text), options);
    });
  return work;
}
