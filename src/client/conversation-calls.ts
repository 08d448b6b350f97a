import type {
  Answer,
  Ask,
  Comment,
  CommentsQuery,
  CreateComment,
  InboxEntry,
  InboxQuery,
  Question,
} from '../conversation/contract.js';
import { type CallOptions, type Requester } from './http.js';

// The typed client's calls for an item's conversation: comments, questions to a
// person and the wait for their answer, the inbox, and reviews. The shapes are the server's
// TypeBox schemas read as types; the work client (work-client.ts) spreads these into its own.

export interface CommentPage {
  comments: Comment[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

export interface InboxPage {
  entries: InboxEntry[];
  next_cursor: string | null;
}

/** A review's decision: approve, or return the work saying why. */
export type ReviewDecision = { approve: true } | { return: string };

const path = (strings: TemplateStringsArray, ...ids: string[]) =>
  strings.reduce((out, part, i) => out + part + (i < ids.length ? encodeURIComponent(ids[i] as string) : ''), '');

export function conversationCalls(request: Requester, nextCursor: (link: string | null) => string | null) {
  async function listItemQuestions(id: string, call: CallOptions = {}): Promise<Question[]> {
    return (await request<Question[]>('GET', path`/work/${id}/questions`, call)).body;
  }

  async function answerQuestion(
    id: string,
    questionId: string,
    body: Answer,
    call: CallOptions = {},
  ): Promise<Question> {
    return (await request<Question>('POST', path`/work/${id}/questions/${questionId}/answer`, { body, ...call })).body;
  }

  return {
    async addComment(id: string, body: CreateComment, call: CallOptions = {}): Promise<Comment> {
      return (await request<Comment>('POST', path`/work/${id}/comments`, { body, ...call })).body;
    },

    /** Oldest first (order 'newest': the latest first), a page at a time (`limit` ≤ 200). */
    async listComments(id: string, query: CommentsQuery = {}, call: CallOptions = {}): Promise<CommentPage> {
      const answer = await request<Comment[]>('GET', path`/work/${id}/comments`, { query, ...call });
      return { comments: answer.body, next_cursor: nextCursor(answer.headers.get('link')) };
    },

    /** Admins only; the item's history records it. */
    async deleteComment(id: string, commentId: string, call: CallOptions = {}): Promise<void> {
      await request('DELETE', path`/work/${id}/comments/${commentId}`, call);
    },

    /** The item waits (blocked, lease paused) until a person answers; 409 while another question is open. */
    async askQuestion(id: string, body: Ask, call: CallOptions = {}): Promise<Question> {
      return (await request<Question>('POST', path`/work/${id}/questions`, { body, ...call })).body;
    },

    /**
     * The question; with `wait_s` (0–30) the service answers as soon as it is answered, or at the
     * end of the wait with the question still open.
     */
    async getQuestion(
      id: string,
      questionId: string,
      query: { wait_s?: number } = {},
      call: CallOptions = {},
    ): Promise<Question> {
      return (await request<Question>('GET', path`/work/${id}/questions/${questionId}`, { query, ...call })).body;
    },

    listItemQuestions,

    /** A person's answer: `option` (one of the question's) or `answer` text. Agents get 403. */
    answerQuestion,

    /** The inbox: open questions oldest first, or answered ones newest first. */
    async listQuestions(query: InboxQuery = {}, call: CallOptions = {}): Promise<InboxPage> {
      const answer = await request<InboxEntry[]>('GET', '/questions', { query, ...call });
      return { entries: answer.body, next_cursor: nextCursor(answer.headers.get('link')) };
    },

    async countQuestions(call: CallOptions = {}): Promise<{ open: number }> {
      return (await request<{ open: number }>('GET', '/questions/counts', call)).body;
    },

    /** Approves or returns the item's open review (finds it, then answers it). */
    async review(id: string, decision: ReviewDecision, call: CallOptions = {}): Promise<Question> {
      const open = (await listItemQuestions(id, call)).find(
        (question) => question.kind === 'review' && question.status === 'open',
      );
      if (!open) throw new Error(`work item ${id} has no open review`);
      const body: Answer =
        'approve' in decision ? { option: 'approve' } : { option: 'return', answer: decision.return };
      return answerQuestion(id, open.id, body, call);
    },
  };
}
