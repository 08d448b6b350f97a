import { sequentialId } from '../shared/db/ids.js';
import type { Actor, WorkItemRow } from '../work/index.js';
import type { Comment, CommentKind, InboxEntry, Link, Question } from './schemas.js';
import type { InboxRow } from './store/port.js';
import type { CommentRow, QuestionRow } from './tables.js';

// How the conversation's rows become what the API and the events show, and the one way a new
// comment row is made (the routes, asking, answering and mail intake all write through it).

export const CONVERSATION_EVENTS = {
  commented: 'work.commented',
  asked: 'question.asked',
  answered: 'question.answered',
  moot: 'question.moot',
} as const;

export function newComment(
  workItemId: string,
  actor: Actor,
  kind: CommentKind,
  body: string,
  links: readonly Link[],
  at: string,
): CommentRow {
  return {
    id: sequentialId(),
    work_item_id: workItemId,
    author: actor.name,
    role: actor.role,
    kind,
    body,
    links: JSON.stringify(links),
    created_at: at,
  };
}

export function toComment(row: CommentRow): Comment {
  return {
    id: row.id,
    work_item_id: row.work_item_id,
    author: row.author,
    role: row.role,
    kind: row.kind,
    body: row.body,
    links: JSON.parse(row.links) as Link[],
    created_at: row.created_at,
  };
}

/** Whether the question is open past its deadline at `now` (ISO). */
export function isOverdue(row: Pick<QuestionRow, 'status' | 'due_at'>, now: string): boolean {
  return row.status === 'open' && row.due_at !== null && Date.parse(row.due_at) <= Date.parse(now);
}

/** The question's view at `now` (which decides `overdue`). */
export function toQuestion(row: QuestionRow, now: string): Question {
  return {
    id: row.id,
    work_item_id: row.work_item_id,
    kind: row.kind,
    asked_by: row.asked_by,
    question: row.question,
    options: row.options === null ? null : (JSON.parse(row.options) as string[]),
    status: row.status,
    to: row.to_people === null ? null : (JSON.parse(row.to_people) as string[]),
    asked_at: row.asked_at,
    answer: row.answer,
    option: row.option,
    answered_by: row.answered_by,
    answered_at: row.answered_at,
    via: row.answered_via,
    due_at: row.due_at,
    overdue: isOverdue(row, now),
  };
}

export function toInboxEntry(row: InboxRow, now: string): InboxEntry {
  return {
    ...toQuestion(row, now),
    item: {
      id: row.work_item_id,
      description: row.item_description,
      priority: Number(row.item_priority),
      project_id: row.item_project_id,
      type: row.item_type,
      status: row.item_status,
      assigned_agent: row.item_assigned_agent,
    },
  };
}

/**
 * An event's data: the comment or question, and its item's agent, type and project at the top
 * level, where the /events filters look (hub.ts `wanted`).
 */
export function eventDataOf(
  entity: Comment | Question,
  item: Pick<WorkItemRow, 'assigned_agent' | 'type' | 'project_id'>,
): string {
  return JSON.stringify({
    ...entity,
    assigned_agent: item.assigned_agent,
    type: item.type,
    project_id: item.project_id,
  });
}
