import { randomUUID } from 'node:crypto';
import {
  type ListTaskPushNotificationConfigsResponse,
  StreamResponse,
  type TaskPushNotificationConfig,
  TaskState,
} from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { Logger } from 'pino';
import { ConflictError, ValidationError } from '../shared/errors.js';
import type { Question } from '../conversation/contract.js';
import type { WorkItemSummary } from '../work/contract.js';
import { statusEvent, taskEvent } from './follow.js';
import type { A2aStore } from './store/port.js';
import type { A2aPushRow } from './store/tables.js';
import { contextIdOf } from './tasks.js';
import { asksRequester, questionTask, taskView } from './task-view.js';

// A2A push notification configs. Each is a webhook endpoint scoped to the task's work item, so its
// notifications are the webhooks' durable deliveries: written from the event log, signed (Standard
// Webhooks), retried, logged. The body is the A2A StreamResponse of the change (docs/a2a.md).

/** The authentication scheme by which the client gives the secret its deliveries are signed with. */
export const SIGNING_SCHEME = 'StandardWebhooks';
export const TOKEN_HEADER = 'X-A2A-Notification-Token';
const MAX_CONFIGS_PER_TASK = 10;
const MAX_ID = 128;
const MAX_TOKEN = 1024;
/** An HTTP auth scheme name (RFC 9110 token). */
const SCHEME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const WHSEC = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;

/** What push asks of the webhooks (the composition root fills it from their service). */
export interface PushEndpoints {
  /** An endpoint for this item alone; throws a ValidationError for a refused url. */
  create(scoped: {
    url: string;
    work_item_id: string;
    headers: Record<string, string>;
    secret: string | null;
    created_by: string;
  }): Promise<string>;
  remove(endpointId: string): Promise<void>;
}

export interface PushDeps {
  store: A2aStore;
  endpoints: PushEndpoints;
  now: () => Date;
}

function toConfig(row: A2aPushRow): TaskPushNotificationConfig {
  return {
    tenant: '',
    id: row.id,
    taskId: row.task_id,
    url: row.url,
    token: row.token,
    // The credentials were for the receiver only: they are kept sealed and never read back.
    authentication: row.auth_scheme === null ? undefined : { scheme: row.auth_scheme, credentials: '' },
  };
}

/** The headers and signing secret a config's deliveries carry. */
function sendingOf(config: TaskPushNotificationConfig): { headers: Record<string, string>; secret: string | null } {
  const headers: Record<string, string> = {};
  if (config.token) headers[TOKEN_HEADER] = config.token;
  const auth = config.authentication;
  if (!auth || (!auth.scheme && !auth.credentials)) return { headers, secret: null };
  if (auth.scheme.toLowerCase() === SIGNING_SCHEME.toLowerCase()) {
    if (!WHSEC.test(auth.credentials))
      throw new RequestMalformedError(
        `authentication: a ${SIGNING_SCHEME} secret is whsec_ and 24 or more bytes in base64`,
      );
    return { headers, secret: auth.credentials };
  }
  if (!SCHEME.test(auth.scheme)) throw new RequestMalformedError('authentication.scheme is not an HTTP auth scheme');
  if (auth.credentials === '' || /[\r\n]/.test(auth.credentials))
    throw new RequestMalformedError('authentication.credentials must be one line of text');
  headers.Authorization = `${auth.scheme} ${auth.credentials}`;
  return { headers, secret: null };
}

/** The desk's refusals of a new config in A2A's terms: a bad url is the client's, no key the server's. */
function refusal(error: unknown): unknown {
  if (error instanceof ValidationError) return new RequestMalformedError(error.message);
  if (error instanceof ConflictError) return new PushNotificationNotSupportedError(error.message);
  return error;
}

/**
 * A task's configs; the caller's right to the task is checked before (readTask: another caller's
 * task is not found), so these take a task the caller may see.
 */
export function createPushConfigs({ store, endpoints, now }: PushDeps) {
  async function found(taskId: string, id: string): Promise<A2aPushRow> {
    const row = await store.findPush(taskId, id);
    if (!row) throw new TaskNotFoundError(`Task ${taskId} has no push notification config ${id}`);
    return row;
  }

  return {
    async create(
      task: { id: string; contextId: string; requester: string },
      owner: string,
      config: TaskPushNotificationConfig,
    ): Promise<TaskPushNotificationConfig> {
      const taskId = task.id;
      if (!config.url) throw new RequestMalformedError('url is required');
      const id = config.id || randomUUID();
      if (id.length > MAX_ID) throw new RequestMalformedError(`id: at most ${MAX_ID} characters`);
      if (config.token.length > MAX_TOKEN) throw new RequestMalformedError(`token: at most ${MAX_TOKEN} characters`);
      const sending = sendingOf(config);
      const existing = await store.listPush(taskId);
      const same = existing.find((row) => row.id === id);
      if (!same && existing.length >= MAX_CONFIGS_PER_TASK)
        throw new RequestMalformedError(`A task has at most ${MAX_CONFIGS_PER_TASK} push notification configs`);
      let endpointId: string;
      try {
        endpointId = await endpoints.create({ url: config.url, work_item_id: taskId, created_by: owner, ...sending });
      } catch (error) {
        throw refusal(error);
      }
      // The same id again replaces the config, as A2A's "set" does.
      if (same) await endpoints.remove(same.endpoint_id);
      const row: A2aPushRow = {
        task_id: taskId,
        id,
        endpoint_id: endpointId,
        url: config.url,
        token: config.token,
        auth_scheme: config.authentication?.scheme || null,
        context_id: task.contextId,
        requester: task.requester,
        created_by: owner,
        created_at: now().toISOString(),
      };
      await store.insertPush(row);
      return toConfig(row);
    },

    get: async (taskId: string, id: string) => toConfig(await found(taskId, id)),

    async list(taskId: string): Promise<ListTaskPushNotificationConfigsResponse> {
      return { configs: (await store.listPush(taskId)).map(toConfig), nextPageToken: '' };
    },

    async remove(taskId: string, id: string): Promise<void> {
      // Removing the endpoint removes the config with it (a foreign key), its delivery log too.
      await endpoints.remove((await found(taskId, id)).endpoint_id);
    },
  };
}

export type PushConfigs = ReturnType<typeof createPushConfigs>;

/**
 * A delivery's body: the change as the A2A stream gives it, in its JSON form. A status change is a
 * statusUpdate, read from the event's own item (the task as it stood then); completion is the
 * whole task, its outcome artifact with it. A question the requester may answer, asked of a
 * blocked item, is INPUT_REQUIRED; the item's move to blocked says nothing by itself, since a
 * review or a question to others leaves the task WORKING, as it was.
 */
export function createPushBody(store: Pick<A2aStore, 'pushOfEndpoint'>) {
  return async function pushBody(
    event: { type: string; data: Record<string, unknown> | null },
    endpointId: string,
    itemStatus: string | undefined,
  ): Promise<string | null> {
    if (event.data === null) return null;
    if (event.type === 'question.asked') {
      const question = event.data as unknown as Question;
      const config = await store.pushOfEndpoint(endpointId);
      if (!config || itemStatus !== 'blocked' || !asksRequester(question, config.requester)) return null;
      const task = questionTask(question, config.context_id);
      return JSON.stringify(StreamResponse.toJSON(statusEvent(task)));
    }
    if (event.type !== 'work.updated') return null;
    const item = event.data as unknown as WorkItemSummary;
    if (item.status === 'blocked') return null;
    const task = taskView({ item, contextId: contextIdOf(item), question: null, latest: [] }, 0);
    const response = task.status?.state === TaskState.TASK_STATE_COMPLETED ? taskEvent(task) : statusEvent(task);
    return JSON.stringify(StreamResponse.toJSON(response));
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
const SWEEP_BATCH = 500;

export interface PushSweepDeps {
  store: A2aStore;
  endpoints: Pick<PushEndpoints, 'remove'>;
  now: () => Date;
  logger: Logger;
  graceDays: number;
  everyMs?: number;
}

/**
 * Removes the configs of tasks that ended more than the grace period ago: long enough for the
 * final delivery's retries, after which nothing more can be sent for them.
 */
export function startPushSweep({ store, endpoints, now, logger, graceDays, everyMs = SWEEP_EVERY_MS }: PushSweepDeps) {
  async function sweep(): Promise<number> {
    const before = new Date(now().getTime() - graceDays * DAY_MS).toISOString();
    let removed = 0;
    for (;;) {
      const ids = await store.endedPushEndpoints(before, SWEEP_BATCH);
      for (const id of ids) await endpoints.remove(id);
      removed += ids.length;
      if (ids.length < SWEEP_BATCH) return removed;
    }
  }
  const timer = setInterval(() => {
    sweep().catch((error: unknown) =>
      logger.warn({ err: { message: (error as Error).message } }, 'A2A push config sweep failed'),
    );
  }, everyMs);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
