import { type Artifact, type Message, type Part, Role, type Task, TaskState } from '@a2a-js/sdk';
import { type Comment, CREATOR, type Question } from '../conversation/contract.js';
import type { WorkItemSummary } from '../work/contract.js';
import { isFinalState, taskState } from './states.js';

// A work item as an A2A task: its state from states.ts, the status message (the latest progress,
// the question asked, why it failed), the outcome as an artifact, the comments as the history.

/** What one read of the desk gives about an item, for its task view. */
export interface TaskSource {
  item: WorkItemSummary;
  contextId: string;
  /** The open question the requester may answer, if any. */
  question: Question | null;
  /** The latest comments, newest first (a page of them). */
  latest: Comment[];
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function urlPart(url: string, title?: string): Part {
  return {
    content: { $case: 'url', value: url },
    metadata: title ? { title } : undefined,
    filename: '',
    mediaType: '',
  };
}

/** Whether the requester is among those an open question asks: everyone, it by name, or its creator. */
export function asksRequester(question: Question, requester: string): boolean {
  if (question.kind !== 'question' || question.status !== 'open') return false;
  return question.to === null || question.to.includes(requester) || question.to.includes(CREATOR);
}

function agentMessage(
  source: Pick<TaskSource, 'item' | 'contextId'>,
  messageId: string,
  parts: Part[],
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId,
    contextId: source.contextId,
    taskId: source.item.id,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A comment as an A2A message: the requester's own are the user's, every other the agent's. */
export function commentMessage(comment: Comment, source: Pick<TaskSource, 'item' | 'contextId'>): Message {
  return {
    messageId: comment.id,
    contextId: source.contextId,
    taskId: source.item.id,
    role: comment.author === source.item.created_by ? Role.ROLE_USER : Role.ROLE_AGENT,
    parts: [textPart(comment.body), ...comment.links.map((link) => urlPart(link.url, link.title))],
    metadata: { author: comment.author, kind: comment.kind, created_at: comment.created_at },
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A question to the requester as the status message: its text, and its options as data. */
function questionMessage(question: Question, source: Pick<TaskSource, 'item' | 'contextId'>): Message {
  const parts = [
    textPart(question.question),
    dataPart({ question_id: question.id, options: question.options ?? [], asked_by: question.asked_by }),
  ];
  return agentMessage(source, question.id, parts, { kind: 'question' });
}

function statusMessage(source: TaskSource, state: TaskState): Message | undefined {
  const { item, question, latest } = source;
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED && question) {
    return questionMessage(question, source);
  }
  if (state === TaskState.TASK_STATE_WORKING) {
    const progress = latest.find((comment) => comment.kind === 'progress');
    return progress ? commentMessage(progress, source) : undefined;
  }
  if ((state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED) && item.notes) {
    return agentMessage(source, `${item.id}-${item.version}`, [textPart(item.notes)]);
  }
  return undefined;
}

/**
 * The task as a question to its requester leaves it, from the question alone (a push, which
 * reads nothing): INPUT_REQUIRED, the question as the status message, as statusMessage gives it.
 */
export function questionTask(question: Question, contextId: string): Task {
  const message = questionMessage(question, { item: { id: question.work_item_id } as TaskSource['item'], contextId });
  return {
    id: question.work_item_id,
    contextId,
    status: { state: TaskState.TASK_STATE_INPUT_REQUIRED, message, timestamp: question.asked_at },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
}

/** The outcome of a completed item: its notes and the links its comments carried. */
function outcome(source: TaskSource): Artifact {
  const { item, latest } = source;
  const links = latest.flatMap((comment) => comment.links);
  const parts = [...(item.notes ? [textPart(item.notes)] : []), ...links.map((link) => urlPart(link.url, link.title))];
  return {
    artifactId: `${item.id}-outcome`,
    name: 'outcome',
    description: 'The notes the work was finished with, and the links left on it',
    parts: parts.length > 0 ? parts : [textPart('completed')],
    metadata: { outcome: item.outcome, completed_at: item.completed_at },
    extensions: [],
  };
}

export function taskView(source: TaskSource, historyLength?: number): Task {
  const { item } = source;
  const state = taskState(item.status, source.question !== null);
  const history =
    historyLength === 0
      ? []
      : source.latest
          .slice(0, historyLength ?? source.latest.length)
          .reverse()
          .map((comment) => commentMessage(comment, source));
  return {
    id: item.id,
    contextId: source.contextId,
    status: { state, message: statusMessage(source, state), timestamp: item.updated_at },
    artifacts: state === TaskState.TASK_STATE_COMPLETED ? [outcome(source)] : [],
    history,
    metadata: {
      agentdesk: {
        status: item.status,
        type: item.type,
        priority: item.priority,
        assigned_agent: item.assigned_agent,
        version: item.version,
      },
    },
  };
}

/** A task the desk refused before making an item: nothing is kept, so a later GetTask finds nothing. */
export function rejectedTask(id: string, contextId: string, why: string, at: string): Task {
  const message: Message = {
    messageId: `${id}-rejected`,
    contextId,
    taskId: id,
    role: Role.ROLE_AGENT,
    parts: [textPart(why)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return {
    id,
    contextId,
    status: { state: TaskState.TASK_STATE_REJECTED, message, timestamp: at },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
}

/** What a stream compares to tell a change worth an event. */
export function stateKey(task: Task): string {
  const status = task.status;
  return JSON.stringify([status?.state, status?.message?.messageId ?? null]);
}

export { isFinalState };
