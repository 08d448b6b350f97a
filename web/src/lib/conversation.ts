import type { WorkItem } from '../../../src/work/schemas.ts';
import { api, withQuery } from './api.ts';
import type { SessionState } from './session.ts';

// The conversation on an item (issue 21): comments, questions a person answers, and the review
// that stands between an agent's "done" and the item's completion. The shapes are the API's;
// who may do what is the service's rule, mirrored here only to hide what a role cannot do (the
// service still refuses it).

export interface CommentLink {
  url: string;
  title?: string | null;
}

export interface Comment {
  id: string;
  work_item_id: string;
  author: string;
  role: string;
  /** note, progress, email, question, answer (and whatever the service adds later). */
  kind: string;
  body: string;
  links: CommentLink[];
  created_at: string;
}

export interface Question {
  id: string;
  work_item_id: string;
  /** question, or review (the gate before done: options approve and return). */
  kind?: string;
  asked_by: string;
  question: string;
  options: string[] | null;
  status: 'open' | 'answered';
  asked_at: string;
  answer: string | null;
  option: string | null;
  answered_by: string | null;
  answered_at: string | null;
}

/** A question as the inbox lists it: with the item it is about. */
export interface InboxQuestion extends Question {
  item?: { id: string; description: string; priority: number; project_id: string | null; assigned_agent?: string | null };
  description?: string;
  priority?: number;
  project_id?: string | null;
}

/** The fields issue 21 adds to an item. */
export type ConversationItem = WorkItem & { review_required?: boolean | null; comment_count?: number };

export const REVIEW = { approve: 'approve', return: 'return' } as const;

export function isReview(q: Question): boolean {
  if (q.kind !== undefined) return q.kind === 'review';
  return q.options?.length === 2 && q.options[0] === REVIEW.approve && q.options[1] === REVIEW.return;
}

/** The item a listed question is about, whichever way the service nests it. */
export function questionItem(q: InboxQuestion): { id: string; description: string; priority: number | null; project_id: string | null } {
  return {
    id: q.item?.id ?? q.work_item_id,
    description: q.item?.description ?? q.description ?? q.work_item_id,
    priority: q.item?.priority ?? q.priority ?? null,
    project_id: q.item?.project_id ?? q.project_id ?? null,
  };
}

const role = (session: SessionState): string | null => session.principal?.role ?? null;

/** People (a member, an admin, anyone on an open desk) answer questions and pass reviews; agents never do. */
export function mayAnswer(session: SessionState): boolean {
  if (session.auth === 'off') return true;
  const r = role(session);
  return r === 'admin' || r === 'member';
}

/** A person comments on any item; an agent on items its agent holds, has held or created. */
export function mayComment(session: SessionState, item: WorkItem): boolean {
  if (mayAnswer(session)) return true;
  const p = session.principal;
  if (p === null || p.role !== 'agent' || p.agent === null) return false;
  const agent = p.agent;
  return item.assigned_agent === agent || item.created_by === agent || item.dispatch_log.some((d) => d.agent === agent);
}

/** Only an admin deletes a comment. */
export function mayDeleteComment(session: SessionState): boolean {
  return session.auth === 'off' || role(session) === 'admin';
}

export const commentsPath = (id: string) => `/work/${encodeURIComponent(id)}/comments`;
export const questionsPath = (id: string) => `/work/${encodeURIComponent(id)}/questions`;

export const COMMENT_PAGE = 200;

/** Reads `pages` pages of an item's comments, oldest first; says whether more remain. */
export async function readComments(id: string, pages: number, signal?: AbortSignal): Promise<{ comments: Comment[]; more: boolean }> {
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

export function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
