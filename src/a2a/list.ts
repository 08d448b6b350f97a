import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Caller } from './desk.js';
import { statusesOf } from './states.js';
import type { A2aStore, ContextAfter } from './store/port.js';
import { readTask } from './tasks.js';

// ListTasks: the caller's own tasks (an admin's: everyone's), newest first: the desk's list, or
// by context the A2A context table's. INPUT_REQUIRED and WORKING share `blocked`, so a page
// filtered by either may hold fewer tasks than its size.

export const LIST_PAGE = { default: 50, max: 100 } as const;
const CONTEXT_TOKEN = 'c.';
const DESK_TOKEN = 'w.';

function contextToken(after: ContextAfter): string {
  return CONTEXT_TOKEN + Buffer.from(JSON.stringify([after.created_at, after.item_id])).toString('base64url');
}

function contextAfter(token: string): ContextAfter {
  try {
    const [created_at, item_id] = JSON.parse(
      Buffer.from(token.slice(CONTEXT_TOKEN.length), 'base64url').toString(),
    ) as [unknown, unknown];
    if (typeof created_at === 'string' && typeof item_id === 'string') return { created_at, item_id };
  } catch {
    // described below
  }
  throw new RequestMalformedError('pageToken is not one this agent handed out');
}

export async function listTasks(caller: Caller, store: A2aStore, params: ListTasksRequest): Promise<ListTasksResponse> {
  const pageSize = params.pageSize ?? LIST_PAGE.default;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIST_PAGE.max) {
    throw new RequestMalformedError(`pageSize must be 1–${LIST_PAGE.max}`);
  }
  const state = params.status;
  const filtered = state !== TaskState.TASK_STATE_UNSPECIFIED && state !== undefined;
  const owner = caller.principal.role === 'admin' ? null : caller.principal.name;
  let ids: string[];
  let next = '';
  if (params.contextId) {
    if (params.pageToken && !params.pageToken.startsWith(CONTEXT_TOKEN)) {
      throw new RequestMalformedError('pageToken is not one this agent handed out');
    }
    const after = params.pageToken ? contextAfter(params.pageToken) : null;
    const rows = await store.contextPage({
      context_id: params.contextId,
      created_by: owner,
      after,
      limit: pageSize + 1,
    });
    const page = rows.slice(0, pageSize);
    ids = page.map((row) => row.item_id);
    if (rows.length > pageSize) next = contextToken(page.at(-1)!);
  } else {
    if (params.pageToken && !params.pageToken.startsWith(DESK_TOKEN)) {
      throw new RequestMalformedError('pageToken is not one this agent handed out');
    }
    const found = await caller.desk.listWork({
      ...(owner !== null && { created_by: owner }),
      ...(filtered && { status: statusesOf(state).join(',') }),
      ...(params.statusTimestampAfter && { updated_since: params.statusTimestampAfter }),
      ...(params.pageToken && { cursor: params.pageToken.slice(DESK_TOKEN.length) }),
      limit: pageSize,
    });
    ids = found.items.map((item) => item.id);
    if (found.next_cursor) next = DESK_TOKEN + found.next_cursor;
  }
  const tasks: Task[] = [];
  for (const id of ids) {
    const task = await readTask(caller, store, id, params.historyLength ?? 0).catch(() => null);
    if (task && (!filtered || task.status?.state === state)) tasks.push(task);
  }
  return { tasks, nextPageToken: next, pageSize, totalSize: tasks.length };
}
