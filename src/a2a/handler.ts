import { randomUUID } from 'node:crypto';
import type { AgentCard, ListTasksResponse, Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { ProblemError } from '../client/errors.js';
import type { WorkItem } from '../work/contract.js';
import { NotCancelableByCreator, WorkItemNotFound } from '../work/index.js';
import type { Caller } from './desk.js';
import { type Watch, artifactEvents, followTask, statusEvent, taskEvent } from './follow.js';
import { newItem, skillOf, textOf } from './messages.js';
import { listTasks } from './list.js';
import type { PushConfigs } from './push.js';
import type { A2aStore } from './store/port.js';
import { readSource, readTask } from './tasks.js';
import { asksRequester, rejectedTask, taskView } from './task-view.js';

// The desk as an A2A request handler (the SDK's A2ARequestHandler), one per request and caller:
// tasks are the caller's work items, read from the desk's own tables through its API, and every
// change goes through the same API as the caller. The SDK's transports parse and answer.

export interface HandlerDeps {
  store: A2aStore;
  watch: Watch;
  now: () => Date;
  card: AgentCard;
  /** The skills a message may name; empty: any work type. */
  skills: readonly string[];
  defaultType: string;
  blockingWaitMs: number;
  /** The requester's own cancel (the work service's cancelOwn). */
  cancelOwn: (id: string) => Promise<WorkItem>;
  /** Fires when the client leaves or the server closes: streams and waits end. */
  stop: AbortSignal;
  push: PushConfigs;
}

/** The desk's refusals that are not "no such task", in A2A's terms. */
function asA2aError(error: unknown): unknown {
  if (error instanceof ProblemError && error.status === 403) return new UnsupportedOperationError(error.detail);
  if (error instanceof ProblemError && error.status === 409) return new UnsupportedOperationError(error.detail);
  return error;
}

async function mapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asA2aError(error);
  }
}

export function createDeskHandler(caller: Caller, deps: HandlerDeps): A2ARequestHandler {
  const { store, watch, stop } = deps;
  const read = (id: string, historyLength?: number) => readTask(caller, store, id, historyLength);

  /** Waits, up to the bound, for the task to end or need input; answers it as it then stands. */
  async function settle(task: Task, historyLength?: number): Promise<Task> {
    const bound = AbortSignal.any([stop, AbortSignal.timeout(deps.blockingWaitMs)]);
    let last = task;
    for await (const seen of followTask(
      { watch, read: () => read(task.id, historyLength), stop: bound, untilSettled: true },
      task,
    )) {
      last = seen;
    }
    return last;
  }

  /** A new task: a new item of the caller's; a refusal of the desk's is a REJECTED task. */
  async function create(message: Message, requestMetadata: Record<string, unknown> | undefined): Promise<Task> {
    const contextId = message.contextId || randomUUID();
    const rejected = (why: string) => rejectedTask(randomUUID(), contextId, why, deps.now().toISOString());
    const type = skillOf(message, requestMetadata) ?? deps.defaultType;
    if (deps.skills.length > 0 && !deps.skills.includes(type)) {
      return rejected(`This agent has no skill "${type}"; its skills: ${deps.skills.join(', ')}`);
    }
    let item: WorkItem;
    try {
      // The message id as the idempotency key: a client that sends the same message again gets
      // the same task back, not a second item.
      item = await caller.desk.submitWork(newItem(message, type, contextId), {
        idempotencyKey: `a2a:${message.messageId}`.slice(0, 255),
      });
    } catch (error) {
      if (error instanceof ProblemError && error.status >= 400 && error.status < 500) return rejected(error.detail);
      throw error;
    }
    await store.link({
      item_id: item.id,
      context_id: contextId,
      created_by: item.created_by,
      created_at: item.created_at,
    });
    return taskView({ item, contextId, question: null, latest: [] }, 0);
  }

  /** A message for an existing task: the answer to its open question, else a comment. */
  async function reply(message: Message): Promise<Task> {
    const source = await readSource(caller, store, message.taskId);
    const state = taskView(source, 0).status?.state;
    if (
      state === TaskState.TASK_STATE_COMPLETED ||
      state === TaskState.TASK_STATE_FAILED ||
      state === TaskState.TASK_STATE_CANCELED
    ) {
      throw new UnsupportedOperationError(`Task ${message.taskId} has ended; a new message starts a new task`);
    }
    const text = textOf(message.parts);
    const question = source.question;
    await mapped(async () => {
      if (question && asksRequester(question, source.item.created_by)) {
        const option = question.options?.find((choice) => choice === text);
        await caller.desk.answerQuestion(source.item.id, question.id, option ? { option } : { answer: text });
      } else {
        if (text === '') throw new RequestMalformedError('The message has no text to add to the task');
        await caller.desk.addComment(source.item.id, { body: text });
      }
    });
    return read(source.item.id, 0);
  }

  async function send(params: SendMessageRequest): Promise<Task> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('message is required');
    return mapped(() => (message.taskId ? reply(message) : create(message, params.metadata)));
  }

  return {
    getAgentCard: async () => deps.card,
    getAuthenticatedExtendedAgentCard: async () => deps.card,

    async sendMessage(params) {
      const task = await send(params);
      const historyLength = params.configuration?.historyLength;
      if (params.configuration?.returnImmediately || task.status?.state === TaskState.TASK_STATE_REJECTED) return task;
      return settle(task, historyLength);
    },

    async *sendMessageStream(params) {
      const task = await send(params);
      yield* follow(task.id, task);
    },

    async *resubscribe(params) {
      const task = await read(params.id);
      const state = task.status?.state;
      if (
        state === TaskState.TASK_STATE_COMPLETED ||
        state === TaskState.TASK_STATE_FAILED ||
        state === TaskState.TASK_STATE_CANCELED
      ) {
        throw new UnsupportedOperationError(`Task ${params.id} has ended; GetTask reads it`);
      }
      yield* follow(task.id, task);
    },

    getTask: (params) => read(params.id, params.historyLength),

    async cancelTask(params) {
      await read(params.id, 0);
      try {
        await deps.cancelOwn(params.id);
      } catch (error) {
        if (error instanceof NotCancelableByCreator) throw new TaskNotCancelableError(error.message);
        if (error instanceof WorkItemNotFound) throw new TaskNotFoundError(`Task ${params.id} not found`);
        throw error;
      }
      return read(params.id);
    },

    listTasks: (params): Promise<ListTasksResponse> => listTasks(caller, store, params),

    // A task's push configs: only a caller that may read the task reaches them (others: not found).
    async createTaskPushNotificationConfig(params) {
      const source = await readSource(caller, store, params.taskId, 0);
      const task = { id: source.item.id, contextId: source.contextId, requester: source.item.created_by };
      return deps.push.create(task, caller.principal.name, params);
    },
    async getTaskPushNotificationConfig(params) {
      const task = await read(params.taskId, 0);
      return deps.push.get(task.id, params.id);
    },
    async listTaskPushNotificationConfigs(params) {
      const task = await read(params.taskId, 0);
      return deps.push.list(task.id);
    },
    async deleteTaskPushNotificationConfig(params) {
      const task = await read(params.taskId, 0);
      await deps.push.remove(task.id, params.id);
    },
  };

  async function* follow(id: string, first: Task): AsyncGenerator<StreamResponse> {
    let started = false;
    for await (const task of followTask({ watch, read: () => read(id), stop }, first)) {
      if (!started) {
        started = true;
        yield taskEvent(task);
        continue;
      }
      if (task.status?.state === TaskState.TASK_STATE_COMPLETED) yield* artifactEvents(task);
      yield statusEvent(task);
    }
  }
}
