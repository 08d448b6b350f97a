import type { AnswerVia, CommentKind, QuestionKind, QuestionStatus } from './schemas.js';

// The conversation's rows (migrations/*/012_conversation.sql). Columns mirror the API's names;
// `links` and `options` are JSON text, `blocked_item` 0/1 as every flag on both databases.

export interface CommentRow {
  id: string;
  work_item_id: string;
  author: string;
  role: string;
  kind: CommentKind;
  body: string;
  links: string;
  created_at: string;
}

export interface QuestionRow {
  id: string;
  work_item_id: string;
  kind: QuestionKind;
  /** The agent the item waits with (its holder when asked), for the inbox's filter. */
  agent: string | null;
  asked_by: string;
  asked_role: string;
  question: string;
  options: string | null;
  status: QuestionStatus;
  asked_at: string;
  answer: string | null;
  option: string | null;
  answered_by: string | null;
  answered_role: string | null;
  answered_at: string | null;
  /** How the answer came (020_link_secret.sql); null when open, or answered before it was recorded. */
  answered_via: AnswerVia | null;
  /** 1 when asking blocked the item: the answer then resumes it. */
  blocked_item: number;
  /** The people the question names, as a JSON array; null: who is told is worked out (src/notify). */
  to_people: string | null;
  /** Open past this it is overdue: asked_at plus its project's answer_within_s when asked; null: never (022). */
  due_at: string | null;
  /** When its mail went to the project's escalate_to; null: not yet (src/notify's scheduler). */
  escalated_at: string | null;
}

export interface ConversationTables {
  work_comments: CommentRow;
  work_questions: QuestionRow;
}

declare module '../shared/db/schema.js' {
  interface DatabaseSchema extends ConversationTables {}
}
