import type { Comment, Question } from '../../../src/conversation/schemas.ts';
import { roleMay } from '../../../src/auth/roles.ts';
import type { WorkItem } from '../../../src/work/api-contract.ts';
import { api, withQuery } from './api.ts';
import type { SessionState } from './session.ts';

// The conversation on an item: comments, questions a person answers, and the review between an
// agent's "done" and the item's completion. Who may do what is the service's rule, mirrored here
// only to hide what a role cannot do (the service still refuses it).

export type { Comment, InboxEntry, Question } from '../../../src/conversation/schemas.ts';

/** A review's two answers (REVIEW_OPTIONS of the schemas, which the bundle does not load: they bring TypeBox). */
export const REVIEW = { approve: 'approve', return: 'return' } as const;

export function isReview(q: Question): boolean {
  return q.kind === 'review';
}

/** People (a member, an admin, anyone on an open desk) answer questions and pass reviews; agents never do. */
export function mayAnswer(session: SessionState): boolean {
  if (session.auth === 'off') return true;
  return session.principal !== null && roleMay(session.principal.role, 'answer');
}

/**
 * A review of the caller's own work: the service refuses its verdict (the holder is never its own
 * reviewer), so its buttons are hidden. The review's asker is the agent that did the work.
 */
export function isOwnReview(session: SessionState, q: Question): boolean {
  const p = session.principal;
  if (!isReview(q) || p === null) return false;
  return p.agent === q.asked_by || (session.auth === 'off' && p.name === q.asked_by);
}

/** A person comments on any item; an agent on items its agent holds, has held or created. */
export function mayComment(session: SessionState, item: WorkItem): boolean {
  if (mayAnswer(session)) return true;
  const p = session.principal;
  if (p === null || !roleMay(p.role, 'comment') || p.agent === null) return false;
  const agent = p.agent;
  return item.assigned_agent === agent || item.created_by === agent || item.dispatch_log.some((d) => d.agent === agent);
}

/** Only an admin deletes a comment. */
export function mayDeleteComment(session: SessionState): boolean {
  return session.auth === 'off' || (session.principal !== null && roleMay(session.principal.role, 'admin'));
}

export const commentsPath = (id: string) => `/work/${encodeURIComponent(id)}/comments`;
export const questionsPath = (id: string) => `/work/${encodeURIComponent(id)}/questions`;

export const COMMENT_PAGE = 200;

/** Reads `pages` pages of an item's comments, oldest first; says whether more remain. */
export async function readComments(
  id: string,
  pages: number,
  signal?: AbortSignal,
): Promise<{ comments: Comment[]; more: boolean }> {
  const comments: Comment[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < pages; page += 1) {
    const r: { data: Comment[]; nextCursor: string | null } = await api<Comment[]>(
      'GET',
      withQuery(commentsPath(id), { limit: COMMENT_PAGE, cursor }),
      undefined,
      signal,
    );
    comments.push(...r.data);
    cursor = r.nextCursor;
    if (cursor === null) return { comments, more: false };
  }
  return { comments, more: true };
}

export interface AnswerBody {
  option?: string;
  answer?: string;
}

export async function answerQuestion(q: Question, body: AnswerBody): Promise<void> {
  await api('POST', `${questionsPath(q.work_item_id)}/${encodeURIComponent(q.id)}/answer`, body);
}

/**
 * The host a link opens, as the URL parser reads it: punycode (`xn--…`) for a name in another
 * script, so a look-alike of a familiar host does not read as that host. Null when unreadable.
 */
export function linkHost(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
