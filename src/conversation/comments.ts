import type { Principal } from '../auth/index.js';
import type { DatabaseHandle } from '../shared/db/schema.js';
import { ValidationError } from '../shared/errors.js';
import {
  WorkItemNotFound,
  type RecentItems,
  changeItem,
  type ItemWithDispatches,
  type WorkStore,
  actorFor,
  actorOf,
} from '../work/index.js';
import { decodePosition, encodePosition } from './cursor.js';
import { misleadingTitle } from './link-title.js';
import { CommentNotFound, MayNotComment } from './errors.js';
import { CONVERSATION_EVENTS, eventDataOf, newComment, toComment } from './rows.js';
import {
  COMMENT_LIMITS,
  CONVERSATION_PAGE,
  type Comment,
  type CreateComment,
  type Link,
  type CommentsQuery,
} from './schemas.js';
import type { ConversationStatementsOn } from './store/index.js';

// The item's conversation: who may comment, the checks on what they write, the timeline read
// in pages. A comment is written with its item's counter and its event in one transaction; it
// does not change the item's version (a comment is not an edit: an If-Match stays good).

export interface CommentPage {
  comments: Comment[];
  next_cursor: string | null;
}

export interface CommentDeps {
  store: WorkStore;
  db: DatabaseHandle;
  /** The conversation's statements for this database (store/create.ts). */
  statementsOn: ConversationStatementsOn;
  now: () => string;
  /** The work service's copies of recent items: a comment makes a copy's counter stale. */
  recent?: RecentItems;
}

/** Links are made clickable in the UI: only http and https ever are, under a title that does not mislead. */
export function checkLinks(links: readonly Link[]): void {
  if (links.length > COMMENT_LIMITS.links) throw ValidationError.of('links', `must be at most ${COMMENT_LIMITS.links}`);
  links.forEach((link, i) => {
    let url: URL | null = null;
    try {
      url = new URL(link.url);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw ValidationError.of(`links/${i}/url`, 'must be an absolute http or https URL');
    }
    const misleading = link.title === undefined ? null : misleadingTitle(link.title, link.url);
    if (misleading) throw ValidationError.of(`links/${i}/title`, misleading);
  });
}

/** An agent comments on items its agent holds, has held or created; a person on any. */
export function mayComment(principal: Principal | null, { row, dispatches }: ItemWithDispatches): boolean {
  if (principal === null || principal.role !== 'agent') return true;
  const agent = principal.agent;
  return (
    agent !== null &&
    (row.assigned_agent === agent ||
      row.created_by === principal.name ||
      dispatches.some((entry) => entry.agent === agent))
  );
}

export type CommentService = ReturnType<typeof createCommentService>;

export function createCommentService({ store, db, statementsOn, now, recent }: CommentDeps) {
  const top = statementsOn(db);

  async function add(id: string, input: CreateComment, principal: Principal | null): Promise<Comment> {
    const links = input.links ?? [];
    checkLinks(links);
    const comment = await store.transaction(async (tx, trx) => {
      const item = await tx.findWithDispatches(id);
      if (!item) throw new WorkItemNotFound(id);
      if (!mayComment(principal, item)) throw new MayNotComment(principal?.agent ?? null);
      const actor = actorFor(principal, undefined, item.row.assigned_agent);
      const at = now();
      const row = newComment(item.row.id, actor, input.kind ?? 'note', input.body, links, at);
      await statementsOn(trx).insertComment(row);
      const view = toComment(row);
      await tx.appendEvent(CONVERSATION_EVENTS.commented, eventDataOf(view, item.row), at);
      return view;
    });
    // The holder's copy stays good (a comment moves no version); only its counter moves on, so
    // the agent's next change still starts from it without a read (the hot path).
    const copy = recent?.take(id);
    if (copy) recent?.remember({ ...copy, row: { ...copy.row, comment_count: copy.row.comment_count + 1 } });
    return comment;
  }

  async function list(id: string, query: CommentsQuery): Promise<CommentPage> {
    const limit = query.limit ?? CONVERSATION_PAGE.default;
    const order = query.order ?? 'oldest';
    // A cursor names its order, so a page of one order never continues the other.
    const listing = order === 'newest' ? 'comments-newest' : 'comments';
    const after = query.cursor === undefined ? null : decodePosition(query.cursor, listing);
    const rows = await top.listComments(id, after, limit + 1, order);
    if (rows.length === 0 && !(await store.findWorkItem(id))) throw new WorkItemNotFound(id);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      comments: page.map(toComment),
      next_cursor: rows.length > limit && last ? encodePosition(listing, { at: last.created_at, id: last.id }) : null,
    };
  }

  /** An admin's deletion, recorded in the item's history (`comment_deleted`). */
  async function remove(id: string, commentId: string, principal: Principal | null): Promise<void> {
    await store.transaction(async (tx, trx) => {
      if (!(await statementsOn(trx).deleteComment(id, commentId))) {
        if (!(await tx.findWorkItem(id))) throw new WorkItemNotFound(id);
        throw new CommentNotFound(commentId);
      }
      await changeItem(tx, id, now, undefined, actorOf(principal), () => ({
        action: 'comment_deleted',
        set: {},
        details: { comment: { id: commentId } },
      }));
    });
    recent?.take(id);
  }

  return { add, list, remove };
}
