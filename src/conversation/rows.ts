import { randomUUID } from 'node:crypto';
import type { Actor } from '../work/items/view.js';
import type { WorkItemRow } from '../work/store/tables.js';
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

let lastMs = 0;
let counter = 0;

/**
 * A UUID (version 7) that sorts after every one this process made before: the timeline is
 * ordered by (created_at, id), and a question and its comment written in the same millisecond
 * must come back in the order they were written. 48 bits of milliseconds, then a 12-bit counter
 * within the millisecond, then random bits.
 */
export function orderedId(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    counter += 1;
    if (counter > 0xfff) {
      lastMs += 1;
      counter = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    counter = 0;
  }
  const random = randomUUID().replace(/-/g, '');
  const hex = ms.toString(16).padStart(12, '0') + '7' + counter.toString(16).padStart(3, '0') + ((parseInt(random[16]!, 16) & 0x3) | 0x8).toString(16) + random.slice(17, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function newComment(workItemId: string, actor: Actor, kind: CommentKind, body: string, links: readonly Link[], at: string): CommentRow {
  return { id: orderedId(), work_item_id: workItemId, author: actor.name, role: actor.role, kind, body, links: JSON.stringify(links), created_at: at };
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

export function toQuestion(row: QuestionRow): Question {
  return {
    id: row.id,
    work_item_id: row.work_item_id,
    kind: row.kind,
    asked_by: row.asked_by,
    question: row.question,
    options: row.options === null ? null : (JSON.parse(row.options) as string[]),
    status: row.status,
    asked_at: row.asked_at,
    answer: row.answer,
    option: row.option,
    answered_by: row.answered_by,
    answered_at: row.answered_at,
  };
}

export function toInboxEntry(row: InboxRow): InboxEntry {
  return {
    ...toQuestion(row),
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
export function eventDataOf(entity: Comment | Question, item: Pick<WorkItemRow, 'assigned_agent' | 'type' | 'project_id'>): string {
  return JSON.stringify({ ...entity, assigned_agent: item.assigned_agent, type: item.type, project_id: item.project_id });
}
