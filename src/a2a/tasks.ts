import type { Task } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { ProblemError } from '../client/errors.js';
import type { A2aStore } from './store/port.js';
import type { Caller } from './desk.js';
import { type TaskSource, asksRequester, taskView } from './task-view.js';

// Reading one task: the item, its open question and its latest comments, as the caller may see
// them. Another caller's item is not found, as an item that does not exist: a caller learns
// nothing of the tasks of others (admins see every task).

/** Comments read for a task's history, status message and links: one page of the newest. */
export const LATEST_COMMENTS = 50;
const MAX_COMMENTS = 200;
/** The desk's item ids (the work API's UuidSchema). */
const ITEM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A desk refusal that means "no such task" for this caller. */
export function isMissing(error: unknown): boolean {
  return error instanceof ProblemError && (error.status === 404 || error.status === 422 || error.status === 400);
}

export async function readSource(
  caller: Caller,
  store: A2aStore,
  id: string,
  historyLength?: number,
): Promise<TaskSource> {
  // Task ids are item ids: anything else (a "..", say, which a URL would resolve) names no task.
  if (!ITEM_ID.test(id)) throw new TaskNotFoundError(`Task ${id} not found`);
  try {
    const item = await caller.desk.getWork(id);
    if (item.created_by !== caller.principal.name && caller.principal.role !== 'admin') throw new TaskNotFoundError();
    const limit = Math.min(MAX_COMMENTS, Math.max(LATEST_COMMENTS, historyLength ?? 0));
    const [questions, page, contexts] = await Promise.all([
      item.status === 'blocked' ? caller.desk.listItemQuestions(id) : Promise.resolve([]),
      caller.desk.listComments(id, { order: 'newest', limit }),
      store.contextsOf([id]),
    ]);
    const question = questions.find((asked) => asksRequester(asked, item.created_by)) ?? null;
    return { item, contextId: contexts.get(id) ?? contextIdOf(item), question, latest: page.comments };
  } catch (error) {
    if (isMissing(error)) throw new TaskNotFoundError(`Task ${id} not found`);
    throw error;
  }
}

/** An item made elsewhere than over A2A: its plan is its context, else it is one of its own. */
export function contextIdOf(item: { id: string; parent_id: string | null; payload: unknown }): string {
  const a2a = (item.payload as { a2a?: { context_id?: unknown } } | null)?.a2a;
  if (typeof a2a?.context_id === 'string') return a2a.context_id;
  return item.parent_id ?? item.id;
}

export async function readTask(caller: Caller, store: A2aStore, id: string, historyLength?: number): Promise<Task> {
  return taskView(await readSource(caller, store, id, historyLength), historyLength);
}
