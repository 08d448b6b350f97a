import type { Static, TSchema } from 'typebox';
import { ACCESS, type Access, type Role } from '../auth/contract.js';
import { ProblemError } from '../client/errors.js';
import { withNote } from '../client/notes.js';
import type { WorkClient } from '../client/work-client.js';
import { MOVES, patchForMove, type UpdateWorkItem, type WorkItem } from '../work/contract.js';
import type { Comment } from '../conversation/contract.js';
import {
  BlockInputSchema,
  ChildrenInputSchema,
  ClaimInputSchema,
  ClaimOutputSchema,
  CompleteInputSchema,
  EmptyInputSchema,
  FailInputSchema,
  HeartbeatInputSchema,
  IdInputSchema,
  ItemOutputSchema,
  ItemWithHistorySchema,
  LATEST_COMMENTS,
  ListInputSchema,
  MCP_PAGE_SIZE,
  PageOutputSchema,
  PlanOutputSchema,
  ProjectsOutputSchema,
  StartInputSchema,
  SubmitInputSchema,
  SearchInputSchema,
  SearchOutputSchema,
  SubmitPlanInputSchema,
} from './schemas.js';
import { CompleteOutputSchema } from './conversation-schemas.js';
import { openReviewOf, reviewNextStep } from './questions.js';

// The tools an agent works with, one entry each: what the model reads and what the call does through the typed
// client, with the caller's credentials, so the service's role and holder rules apply unchanged.

/**
 * Who is calling: the agent the token acts as (else its name; X-User under AUTH=off), and its role. A tool's
 * agent comes from here, never from an argument.
 */
export interface Caller {
  agent: string;
  role: Role;
}

export interface ToolContext {
  client: WorkClient;
  caller: Caller;
  signal: AbortSignal;
}

/** MCP's tool annotations, always all four: the protocol's defaults (destructive: true) fit none of ours. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition<Input extends TSchema = TSchema> {
  name: string;
  title: string;
  description: string;
  /** The access level the tool's routes need: the tool is listed only to roles that have it. */
  access: Access;
  input: Input;
  output: TSchema;
  annotations: ToolAnnotations;
  run(args: Static<Input>, context: ToolContext): Promise<Record<string, unknown>>;
}

export const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const MOVE_HINTS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Completed and failed are final: no move leads out of them. */
const FINAL_MOVES: ToolAnnotations = { ...MOVE_HINTS, destructiveHint: true };
export const ADDS: ToolAnnotations = { ...MOVE_HINTS, idempotentHint: false };

/** How often a read-then-write is retried when someone else's change wins the race. */
const WRITE_ATTEMPTS = 5;

export function define<Input extends TSchema>(tool: ToolDefinition<Input>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The payload with `result` merged into its `result` object (made one if it was anything else). */
export function withResult(payload: WorkItem['payload'], result: object): Record<string, unknown> {
  const current = (payload ?? {}) as Record<string, unknown>;
  const earlier = isObject(current.result) ? current.result : {};
  return { ...current, result: { ...earlier, ...result } };
}

/**
 * Reads the item, lets `change` decide the write from it, and writes under If-Match: the
 * caller's version when given (so the write fails if the item moved on since the caller looked),
 * else the version just read, retried from a fresh read when a concurrent change wins.
 */
async function changeFromCurrent(
  { client, signal }: ToolContext,
  id: string,
  version: number | undefined,
  change: (current: WorkItem) => UpdateWorkItem,
  note?: string,
): Promise<WorkItem> {
  for (let attempt = 1; ; attempt += 1) {
    const current = await client.getWork(id, { signal });
    const body = change(current);
    if (note !== undefined) {
      const notes = withNote(current.notes, note, body.status !== undefined && body.status === current.status);
      if (notes !== current.notes) body.notes = notes;
    }
    try {
      return await client.updateWork(id, body, { signal, ifMatch: version ?? current.version });
    } catch (error) {
      const lostRace = error instanceof ProblemError && error.status === 412 && version === undefined;
      if (!lostRace || attempt >= WRITE_ATTEMPTS) throw error;
    }
  }
}

/** The item and its whole audit trail (GET /work/{id}/history), read together. */
async function itemWithHistory({ client, signal }: ToolContext, id: string): Promise<Record<string, unknown>> {
  const [item, history, comments] = await Promise.all([
    client.getWork(id, { signal }),
    // Held until the item is read: a missing item is refused with the item's own error.
    client.getWorkHistory(id, { signal }).catch((error: unknown) => error),
    latestComments(client, id, signal).catch((error: unknown) => error),
  ]);
  if (!Array.isArray(history)) throw history;
  if (!Array.isArray(comments)) throw comments;
  return { ...item, latest_comments: comments, history, history_source: 'history' };
}

/** What a person said on the item lately: an agent reading the item must see it. */
export async function latestComments(client: WorkClient, id: string, signal: AbortSignal): Promise<Comment[]> {
  return (await client.listComments(id, { order: 'newest', limit: LATEST_COMMENTS }, { signal })).comments;
}

export const TOOLS: readonly ToolDefinition[] = [
  define({
    name: 'claim_next_work',
    title: 'Claim the next work item',
    description:
      'Take the next work item for you (items dispatched to you first, then the queue by priority) on a lease, already in_progress; wait_s (≤30) waits for one to arrive. Answers the item, or claimed:false when there is none.',
    access: ACCESS.work,
    input: ClaimInputSchema,
    output: ClaimOutputSchema,
    annotations: ADDS,
    async run(args, { client, caller, signal }) {
      const item = await client.claimWork({ ...args, agent: caller.agent }, { signal });
      if (item) return item;
      const which = args.types ? ` of type ${args.types.join(' or ')}` : '';
      return {
        claimed: false,
        detail: `No work${which} is waiting for ${caller.agent}. Call claim_next_work again later, or with wait_s (up to 30) to wait for some.`,
      };
    },
  }),
  define({
    name: 'heartbeat',
    title: 'Keep the lease',
    description:
      'Keep your lease on a work item you hold: call it before lease_expires_at while you work, or the item goes back to the queue; lease_s sets a new lease length.',
    access: ACCESS.work,
    input: HeartbeatInputSchema,
    output: ItemOutputSchema,
    annotations: MOVE_HINTS,
    run: ({ id, ...rest }, { client, caller, signal }) =>
      client.heartbeat(id, { ...rest, agent: caller.agent }, { signal }),
  }),
  define({
    name: 'get_work_item',
    title: 'Read a work item',
    description: `Read one work item: its status, holder, notes, payload, version and lease, its ${LATEST_COMMENTS} latest comments (read them: a person may have told you something) and its history.`,
    access: ACCESS.read,
    input: IdInputSchema,
    output: ItemWithHistorySchema,
    annotations: READS,
    run: ({ id }, context) => itemWithHistory(context, id),
  }),
  define({
    name: 'list_work',
    title: 'List work items',
    description: `List work items, newest first (sort=priority: queue order), filtered by status (comma-separated), agent, type, project_id, since; ${MCP_PAGE_SIZE} per page, next page with next_cursor.`,
    access: ACCESS.read,
    input: ListInputSchema,
    output: PageOutputSchema,
    annotations: READS,
    async run(args, { client, signal }) {
      const page = await client.listWork(args, { signal });
      return { items: page.items, next_cursor: page.next_cursor };
    },
  }),
  define({
    name: 'list_children',
    title: 'List the children of a work item',
    description: `List the children of a work item (the steps of a plan) in queue order, filtered by status (comma-separated) and ready (claimable now); ${MCP_PAGE_SIZE} per page, next page with next_cursor.`,
    access: ACCESS.read,
    input: ChildrenInputSchema,
    output: PageOutputSchema,
    annotations: READS,
    async run({ id, ...args }, { client, signal }) {
      const page = await client.listWork({ sort: 'priority', ...args, parent_id: id }, { signal });
      return { items: page.items, next_cursor: page.next_cursor };
    },
  }),
  define({
    name: 'start_work',
    title: 'Start or resume a work item',
    description:
      'Start a work item dispatched to you, or resume one you blocked: moves it to in_progress and renews your lease.',
    access: ACCESS.work,
    input: StartInputSchema,
    output: ItemOutputSchema,
    annotations: MOVE_HINTS,
    run: ({ id, version }, { client, signal }) =>
      client.updateWork(id, patchForMove(MOVES.pick_up), { signal, ifMatch: version }),
  }),
  define({
    name: 'block_work',
    title: 'Block a work item',
    description:
      'Pause your work item while you wait for something (a build, access being granted): moves it to blocked, the reason appended to its notes; start_work resumes it. To get an answer from a person, use ask_person.',
    access: ACCESS.work,
    input: BlockInputSchema,
    output: ItemOutputSchema,
    annotations: MOVE_HINTS,
    run: ({ id, reason, version }, context) =>
      changeFromCurrent(context, id, version, () => patchForMove(MOVES.block), reason),
  }),
  define({
    name: 'complete_work',
    title: 'Complete a work item',
    description:
      "Finish your work item successfully: moves it to completed (final), appends notes, merges result into the payload's result; an item that needs a person's review is sent for review instead (blocked until approved).",
    access: ACCESS.work,
    input: CompleteInputSchema,
    output: CompleteOutputSchema,
    annotations: FINAL_MOVES,
    async run({ id, notes, result, version }, context) {
      const done: UpdateWorkItem = patchForMove(MOVES.complete);
      const item =
        notes === undefined && result === undefined
          ? await context.client.updateWork(id, done, { signal: context.signal, ifMatch: version })
          : await changeFromCurrent(
              context,
              id,
              version,
              (current) => ({ ...done, ...(result !== undefined && { payload: withResult(current.payload, result) }) }),
              notes,
            );
      const review = await openReviewOf(context.client, item, context);
      return review === null ? item : { ...item, review, next_step: reviewNextStep(review) };
    },
  }),
  define({
    name: 'fail_work',
    title: 'Fail a work item',
    description: 'Give up on your work item: moves it to failed (final), the reason appended to its notes.',
    access: ACCESS.work,
    input: FailInputSchema,
    output: ItemOutputSchema,
    annotations: FINAL_MOVES,
    run: ({ id, reason, version }, context) =>
      changeFromCurrent(context, id, version, () => patchForMove(MOVES.fail), reason),
  }),
  define({
    name: 'submit_work',
    title: 'Submit a work item',
    description:
      'Put a new work item in the queue (type, description, priority 1 highest to 5, payload; parent_id makes it a sub-item, depends_on lists items it waits for); send an idempotency_key so a retry never creates it twice.',
    access: ACCESS.submit,
    input: SubmitInputSchema,
    output: ItemOutputSchema,
    annotations: ADDS,
    run: ({ idempotency_key, ...body }, { client, signal }) =>
      client.submitWork(body, { signal, idempotencyKey: idempotency_key }),
  }),
  define({
    name: 'submit_plan',
    title: 'Submit a plan of work',
    description:
      "Submit a parent item and its steps at once, all or none: each step has a key, and depends_on_keys names the steps it waits for (no step is claimable before those complete). Answers the parent and each step's id by key.",
    access: ACCESS.submit,
    input: SubmitPlanInputSchema,
    output: PlanOutputSchema,
    annotations: ADDS,
    run: ({ idempotency_key, ...body }, { client, signal }) =>
      client.submitPlan(body, { signal, idempotencyKey: idempotency_key }),
  }),
  define({
    name: 'search_work',
    title: 'Search work items',
    description: `Search work items, their comments and mail: words (all must match), "phrase", -word, word*, filters such as status: type: project: is:open is:needs-me created:>YYYY-MM-DD priority:N. Search before you submit: the work may exist. Best first, ${MCP_PAGE_SIZE} per page, next_cursor.`,
    access: ACCESS.read,
    input: SearchInputSchema,
    output: SearchOutputSchema,
    annotations: READS,
    async run(args, { client, signal }) {
      const page = await client.search(args, { signal });
      return { results: page.results, next_cursor: page.next_cursor };
    },
  }),
  define({
    name: 'list_projects',
    title: 'List projects',
    description: 'List all projects (id, name, external_ref), e.g. to find the project_id to filter or claim work by.',
    access: ACCESS.read,
    input: EmptyInputSchema,
    output: ProjectsOutputSchema,
    annotations: READS,
    async run(_args, { client, signal }) {
      return { projects: await client.listProjects({ signal }) };
    },
  }),
];
