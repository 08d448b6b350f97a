import type { Static } from 'typebox';
import type { CreateToken, CreatedTokenSchema, SessionView, TokenRecord } from '../auth/contract.js';
import type { HealthSchema } from '../shared/http/schemas.js';
import type {
  ClaimRequest,
  CountsQuery,
  CreateProject,
  CreateWorkItem,
  HeartbeatRequest,
  ListWorkQuery,
  Project,
  StatusCounts,
  UpdateProject,
  UpdateWorkItem,
  WorkItem,
  WorkItemDetail,
  WorkItemSummary,
  CreatePlan,
  SubmittedPlan,
} from '../work/contract.js';
import { conversationCalls } from './conversation-calls.js';
import { peopleCalls } from './people-calls.js';
import { webhookCalls } from './webhook-calls.js';
import { searchCalls } from './search-calls.js';
import { scheduleCalls } from './schedule-calls.js';
import { ProblemError } from './errors.js';
import { withNote } from './notes.js';
import { type CallOptions, type ClientOptions, createRequester } from './http.js';

// A typed client of the work service, typed by the server's own TypeBox schemas so a field renamed on the
// server fails the build here (docs/design-decisions.md, "Interfaces"). Only the routes are written by hand;
// test/client/work-client.test.ts checks each against the OpenAPI document.

export type CreatedToken = Static<typeof CreatedTokenSchema>;
export type Health = Static<typeof HealthSchema>;

export interface WorkPage {
  items: WorkItemSummary[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

export interface ChangeOptions extends CallOptions {
  /** The version (or ETag) the change is based on: 412 if the item moved on since. */
  ifMatch?: number | string | undefined;
}

export interface SubmitOptions extends CallOptions {
  /** The same key and body within 24 hours answers the first item again, never a second one. */
  idempotencyKey?: string | undefined;
}

/** An item and its children, each with theirs, as `tree` reads them. */
export interface WorkTree {
  item: WorkItemSummary;
  children: WorkTree[];
  /** True when the tree was cut here (`depth` or `maxItems`) and this item has children not read. */
  truncated: boolean;
}

export interface TreeOptions extends CallOptions {
  /** Levels below the root to read; default 8, the deepest nesting the service allows. */
  depth?: number;
  /** Items read at most, the root included; default 2,000. */
  maxItems?: number;
}

const TREE_DEPTH = 8;
const TREE_MAX_ITEMS = 2_000;
/** The largest page the service gives: a parent has at most 1,000 children, so one page each. */
const CHILDREN_PAGE = 1_000;

/** How often a note is re-based on a fresh read when a concurrent change wins the race. */
const NOTE_ATTEMPTS = 5;

function ifMatchHeader(ifMatch: number | string | undefined): string | undefined {
  if (ifMatch === undefined) return undefined;
  return typeof ifMatch === 'number' ? `"${ifMatch}"` : ifMatch;
}

/** The cursor in a `Link: <…?cursor=…>; rel="next"` header. */
export function nextCursor(link: string | null): string | null {
  const match = link ? /<([^>]*)>\s*;\s*rel="?next"?/.exec(link) : null;
  if (!match) return null;
  return new URL(match[1] as string, 'http://agentdesk.invalid').searchParams.get('cursor');
}

const path = (strings: TemplateStringsArray, ...ids: string[]) =>
  strings.reduce((out, part, i) => out + part + (i < ids.length ? encodeURIComponent(ids[i] as string) : ''), '');

export function createWorkClient(options: ClientOptions) {
  const request = createRequester(options);

  async function page(url: string, query: object | undefined, call: CallOptions): Promise<WorkPage> {
    const answer = await request<WorkItemSummary[]>('GET', url, { query, ...call });
    return { items: answer.body, next_cursor: nextCursor(answer.headers.get('link')) };
  }

  async function updateWork(id: string, body: UpdateWorkItem, call: ChangeOptions = {}): Promise<WorkItem> {
    const { ifMatch, headers, signal } = call;
    return (
      await request<WorkItem>('PATCH', path`/work/${id}`, {
        body,
        headers: { ...headers, 'if-match': ifMatchHeader(ifMatch) },
        signal,
      })
    ).body;
  }

  /** The item with its dispatch log, its dependencies (depends_on, blocked_by) and its children's counts. */
  async function getWork(id: string, call: CallOptions = {}): Promise<WorkItemDetail> {
    return (await request<WorkItemDetail>('GET', path`/work/${id}`, call)).body;
  }

  /** Every child of `parentId` (GET /work?parent_id=…, each page), in queue order. */
  async function children(
    parentId: string,
    query: Omit<ListWorkQuery, 'parent_id' | 'cursor'> = {},
    call: CallOptions = {},
  ): Promise<WorkItemSummary[]> {
    const items: WorkItemSummary[] = [];
    let cursor: string | undefined;
    do {
      const found = await page(
        '/work',
        { sort: 'priority', limit: CHILDREN_PAGE, ...query, parent_id: parentId, cursor },
        call,
      );
      items.push(...found.items);
      cursor = found.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return items;
  }

  /**
   * The item and its descendants, read level by level (one listing per item that may have
   * children); cut at `depth` levels or `maxItems` items, the cut marked `truncated`.
   */
  async function tree(id: string, options: TreeOptions = {}): Promise<WorkTree> {
    const { depth = TREE_DEPTH, maxItems = TREE_MAX_ITEMS, ...call } = options;
    const { dispatch_log: _log, depends_on: _on, blocked_by: _by, children: counts, ...root } = await getWork(id, call);
    const top: WorkTree = { item: root, children: [], truncated: false };
    // The root's children are counted; a listed item's are not: only a listing tells.
    const known = new Map([[root.id, counts.total]]);
    let level = [top];
    let read = 1;
    for (let below = 1; level.length > 0; below++) {
      const next: WorkTree[] = [];
      for (const node of level) {
        if (known.get(node.item.id) === 0) continue;
        if (below > depth || read >= maxItems) {
          node.truncated = true;
          continue;
        }
        const found = await children(node.item.id, {}, call);
        const kept = found.slice(0, Math.max(0, maxItems - read));
        read += kept.length;
        node.truncated = kept.length < found.length;
        node.children = kept.map((item) => ({ item, children: [], truncated: false }));
        next.push(...node.children);
      }
      level = next;
    }
    return top;
  }

  return {
    /** Who the service takes the caller for, and whether authentication is on. */
    async session(call: CallOptions = {}): Promise<SessionView> {
      return (await request<SessionView>('GET', '/session', call)).body;
    },

    /** `{status:'ok'}`, or `{status:'unavailable'}` (a 503) while the database does not answer. */
    async health(call: CallOptions = {}): Promise<Health> {
      try {
        return (await request<Health>('GET', '/health', call)).body;
      } catch (error) {
        if (error instanceof ProblemError && error.status === 503) return { status: 'unavailable' };
        throw error;
      }
    },

    listWork(query: ListWorkQuery = {}, call: CallOptions = {}): Promise<WorkPage> {
      return page('/work', query, call);
    },

    children,
    tree,

    /** The items whose depends_on names `id` (GET /work/{id}/dependents), at most 1,000. */
    async dependents(id: string, call: CallOptions = {}): Promise<WorkItemSummary[]> {
      return (await request<WorkItemSummary[]>('GET', path`/work/${id}/dependents`, call)).body;
    },

    /** One agent's items (404 for an agent nobody has heard of). */
    listAgentWork(agent: string, query: Omit<ListWorkQuery, 'agent'> = {}, call: CallOptions = {}): Promise<WorkPage> {
      return page(path`/work/agent/${agent}`, query, call);
    },

    async countWork(query: CountsQuery = {}, call: CallOptions = {}): Promise<StatusCounts> {
      return (await request<StatusCounts>('GET', '/work/counts', { query, ...call })).body;
    },

    getWork,

    /**
     * Every change to the item, oldest first (GET /work/{id}/history). Typed loosely until the
     * service's HistoryEntrySchema is on this branch; a service without the route answers 404.
     */
    async getWorkHistory(id: string, call: CallOptions = {}): Promise<Array<Record<string, unknown>>> {
      return (await request<Array<Record<string, unknown>>>('GET', path`/work/${id}/history`, call)).body;
    },

    async submitWork(body: CreateWorkItem, call: SubmitOptions = {}): Promise<WorkItem> {
      const { idempotencyKey, headers, signal } = call;
      return (
        await request<WorkItem>('POST', '/work', {
          body,
          headers: { ...headers, 'idempotency-key': idempotencyKey },
          signal,
        })
      ).body;
    },

    /**
     * A parent and its steps in one transaction (POST /work/plans): steps name each other by
     * `key` in `depends_on_keys`; the answer gives each step's id by its key.
     */
    async submitPlan(body: CreatePlan, call: SubmitOptions = {}): Promise<SubmittedPlan> {
      const { idempotencyKey, headers, signal } = call;
      return (
        await request<SubmittedPlan>('POST', '/work/plans', {
          body,
          headers: { ...headers, 'idempotency-key': idempotencyKey },
          signal,
        })
      ).body;
    },

    /** The next item for `agent`, on a lease; null when there is none (after up to `wait_s`). */
    async claimWork(body: ClaimRequest, call: CallOptions = {}): Promise<WorkItem | null> {
      const answer = await request<WorkItem | undefined>('POST', '/work/claim', { body, ...call });
      return answer.status === 204 || answer.body === undefined ? null : answer.body;
    },

    async heartbeat(id: string, body: HeartbeatRequest, call: CallOptions = {}): Promise<WorkItem> {
      return (await request<WorkItem>('POST', path`/work/${id}/heartbeat`, { body, ...call })).body;
    },

    updateWork,

    /**
     * Adds `text` below the item's notes (the API replaces notes; this appends), with `changes`
     * in the same request: a block with its reason, say. Read, then write under If-Match, so a
     * note written meanwhile by someone else is kept; a lost race re-reads and tries again. A
     * move the item has already made with this note last (a retry) writes nothing new.
     */
    async appendNote(
      id: string,
      text: string,
      changes: Omit<UpdateWorkItem, 'notes'> = {},
      call: CallOptions = {},
    ): Promise<WorkItem> {
      for (let attempt = 1; ; attempt++) {
        const current = await getWork(id, call);
        const repeat = changes.status !== undefined && changes.status === current.status;
        const notes = withNote(current.notes, text, repeat);
        try {
          return await updateWork(
            id,
            { ...changes, ...(notes !== current.notes && { notes }) },
            { ...call, ifMatch: current.version },
          );
        } catch (error) {
          if (!(error instanceof ProblemError) || error.status !== 412 || attempt >= NOTE_ATTEMPTS) throw error;
        }
      }
    },

    async deleteWork(id: string, call: ChangeOptions = {}): Promise<void> {
      const { ifMatch, headers, signal } = call;
      await request('DELETE', path`/work/${id}`, {
        headers: { ...headers, 'if-match': ifMatchHeader(ifMatch) },
        signal,
      });
    },

    async listProjects(call: CallOptions = {}): Promise<Project[]> {
      return (await request<Project[]>('GET', '/projects', call)).body;
    },

    async getProject(id: string, call: CallOptions = {}): Promise<Project> {
      return (await request<Project>('GET', path`/projects/${id}`, call)).body;
    },

    async createProject(body: CreateProject, call: CallOptions = {}): Promise<Project> {
      return (await request<Project>('POST', '/projects', { body, ...call })).body;
    },

    async updateProject(id: string, body: UpdateProject, call: CallOptions = {}): Promise<Project> {
      return (await request<Project>('PATCH', path`/projects/${id}`, { body, ...call })).body;
    },

    async listTokens(call: CallOptions = {}): Promise<TokenRecord[]> {
      return (await request<TokenRecord[]>('GET', '/tokens', call)).body;
    },

    async getToken(id: string, call: CallOptions = {}): Promise<TokenRecord> {
      return (await request<TokenRecord>('GET', path`/tokens/${id}`, call)).body;
    },

    /** The answer carries the secret (`token`), which the service never shows again. */
    async createToken(body: CreateToken, call: CallOptions = {}): Promise<CreatedToken> {
      return (await request<CreatedToken>('POST', '/tokens', { body, ...call })).body;
    },

    async revokeToken(id: string, call: CallOptions = {}): Promise<void> {
      await request('DELETE', path`/tokens/${id}`, call);
    },

    // The item's conversation: comments, questions to a person, the inbox, reviews.
    ...conversationCalls(request, nextCursor),
    // People's profiles: whom the desk tells of questions and reviews, and how.
    ...peopleCalls(request),
    // Webhooks: endpoints that hear the desk's events, and their delivery log (admins).
    ...webhookCalls(request, nextCursor),
    // Full-text search over items, their conversations and mail.
    ...searchCalls(request, nextCursor),
    // Schedules: recurring work, listed by anyone who reads, created by people.
    ...scheduleCalls(request),
  };
}

export type WorkClient = ReturnType<typeof createWorkClient>;
