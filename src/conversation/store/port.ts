import type { CommentOrder, InboxStatus } from '../schemas.js';
import type { CommentRow, QuestionRow } from '../tables.js';

// What the conversation asks of its database: its two tables and the item's comment counter,
// run on the open transaction of a work-store change (store.transaction), so a question, its
// comment, the counter and the item's move commit together. SQL only: no rule is decided here.

export interface Position {
  at: string;
  id: string;
}

export interface InboxFilter {
  status: InboxStatus;
  project_id?: string;
  agent?: string;
  /** Open ones past their due_at at `at` (is: true), or all others (is: false). */
  overdue?: { is: boolean; at: string };
}

/** A question with the fields of its item the inbox shows. */
export interface InboxRow extends QuestionRow {
  item_description: string;
  item_priority: number;
  item_project_id: string | null;
  item_type: string;
  item_status: string;
  item_assigned_agent: string | null;
}

/** An open question with who its item and project tell (JSON name lists), for digests (src/notify). */
export interface WaitingRow extends QuestionRow {
  item_description: string;
  item_type: string;
  item_created_by: string;
  item_watchers: string | null;
  project_name: string | null;
  project_watchers: string | null;
}

export interface ConversationStatements {
  /** Writes the comment and adds one to its item's counter. */
  insertComment(row: CommentRow): Promise<void>;
  /** Oldest first, or newest first; `after` is the last row of the previous page in that order. */
  listComments(workItemId: string, after: Position | null, limit: number, order: CommentOrder): Promise<CommentRow[]>;
  /** Deletes the comment and takes one from its item's counter; false when it was not there. */
  deleteComment(workItemId: string, commentId: string): Promise<boolean>;

  /** Writes the question; false (nothing written) when the item already has an open question. */
  insertQuestion(row: QuestionRow): Promise<boolean>;
  findQuestion(workItemId: string, questionId: string): Promise<QuestionRow | undefined>;
  findQuestions(ids: readonly string[]): Promise<QuestionRow[]>;
  findOpenQuestion(workItemId: string): Promise<QuestionRow | undefined>;
  /** Answers the question if it is still open; false when another answer came first. */
  answerQuestion(
    id: string,
    answer: Pick<QuestionRow, 'answer' | 'option' | 'answered_by' | 'answered_role' | 'answered_at' | 'answered_via'>,
  ): Promise<boolean>;
  listItemQuestions(workItemId: string): Promise<QuestionRow[]>;
  /** Marks the open questions of these items moot; answers those it closed. */
  closeOpenQuestions(workItemIds: readonly string[]): Promise<QuestionRow[]>;
  /** Open: oldest first; answered: newest first; keyset-paged on (asked_at or answered_at, id). */
  inbox(filter: InboxFilter, after: Position | null, limit: number): Promise<InboxRow[]>;
  countOpen(): Promise<number>;
  /** Every open question with its item's and project's people, oldest first. */
  listWaiting(): Promise<WaitingRow[]>;
  /** Up to `limit` open questions past their due_at at `at` whose escalation is not yet written, oldest due first. */
  listToEscalate(at: string, limit: number): Promise<QuestionRow[]>;
  /** Records the escalation if none was recorded and the question is still open; false otherwise. */
  markEscalated(id: string, at: string): Promise<boolean>;
}
