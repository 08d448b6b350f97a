import type { AddressInfo } from 'node:net';
import { StreamResponse, type TaskPushNotificationConfig, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Webhooks, createHttpTransport } from '../../src/webhooks/index.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { SECRET_KEY } from '../support/intake.js';
import { NO_TIMER_MS, type Receiver, type Received, admin, startReceiver } from '../webhooks/support.js';
import { a2aClient, send, userMessage } from './helpers.js';

// A2A push notifications through the official SDK's client: a config made over JSON-RPC turns the
// task's changes into the webhooks' deliveries to a real receiver on loopback, signed so the
// official Standard Webhooks verifier accepts them, with the A2A token and Authorization headers.
// The fan-out and the sender run when the test says, at the test's clock.

const SECRET = `whsec_${Buffer.from('a push secret of thirty-two bytes').toString('base64')}`;
const DAY_MS = 24 * 60 * 60 * 1000;

function config(taskId: string, url: string, extra: Partial<TaskPushNotificationConfig> = {}) {
  return { tenant: '', id: '', taskId, url, token: 'tok-1', authentication: undefined, ...extra };
}

/** The official verifier at the delivery's own time (it refuses timestamps five minutes off its clock). */
function verified(secret: string, message: Received): unknown {
  const at = Number(message.headers['webhook-timestamp']) * 1000;
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(at);
    return new Webhook(secret).verify(message.body, message.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}

describe.each(await storesUnderTest())('A2A push notifications on %s', (kind) => {
  const clock = createTestClock();
  let desk: TestApp;
  let webhooks: Webhooks | undefined;
  let sweep: (() => Promise<number>) | undefined;
  let receiver: Receiver;
  let client: Client;
  let other: Client;
  let bot: Record<string, string>;
  let restBase: string;
  let adaToken: string;

  /** Runs the fan-out and the sender at the test's clock (a commit's own wake may have sent some already). */
  async function deliver(): Promise<void> {
    await webhooks!.fanOut();
    await webhooks!.start().runOnce();
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    desk = await startWorkApp(
      kind,
      { ...AUTH_ENV, OUTBOUND_ALLOWED_HOSTS: '127.0.0.1', AGENTDESK_SECRET_KEY: SECRET_KEY },
      {
        now: clock.now,
        sweepEveryMs: NO_TIMER_MS,
        webhooks: {
          // Long: on a loaded host a loopback answer can take seconds, and a timeout would be a retry.
          transport: createHttpTransport({ allowedHosts: ['127.0.0.1'], timeoutMs: 30_000 }).transport,
          sender: { pollMs: NO_TIMER_MS, sendTimeoutMs: 30_000 },
          fanOutPollMs: NO_TIMER_MS,
        },
        onWebhooks: (started) => (webhooks = started),
        onA2aPushSweep: (given) => (sweep = given),
      },
    );
    await desk.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(desk.app.server.address() as AddressInfo).port}`;
    restBase = base;
    adaToken = (await mintToken(desk.app, { role: 'member', name: 'ada', agent: 'ada' })).token;
    client = await a2aClient(base, adaToken);
    other = await a2aClient(base, (await mintToken(desk.app, { role: 'member', name: 'mia', agent: 'mia' })).token);
    bot = bearer((await mintToken(desk.app, { role: 'agent', agent: 'bot-1' })).token);
  });
  afterAll(async () => {
    await desk?.close();
    await receiver?.close();
  });

  it('says so on the card', async () => {
    expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true);
  });

  it('sends each change of the task to the config, signed, on to COMPLETED with the artifact', async () => {
    const task = await send(client, userMessage('Push me', { metadata: { skill: 'push_job' } }));
    const made = await client.createTaskPushNotificationConfig(
      config(task.id, `${receiver.url}?push`, { authentication: { scheme: 'StandardWebhooks', credentials: SECRET } }),
    );
    expect(made).toMatchObject({ taskId: task.id, url: `${receiver.url}?push`, token: 'tok-1' });
    expect(made.id).not.toBe('');
    expect(made.authentication).toEqual({ scheme: 'StandardWebhooks', credentials: '' });

    const claimed = await call(desk.app, 'POST', '/work/claim', { types: ['push_job'] }, bot);
    expect(claimed.body.id).toBe(task.id);
    // A question to the requester: the item blocks, the task needs input; the answer resumes it.
    const asked = await call(
      desk.app,
      'POST',
      `/work/${task.id}/questions`,
      { question: 'Which branch?', options: ['main', 'dev'], to: ['@creator'] },
      bot,
    );
    expect(asked.status, asked.text).toBe(201);
    clock.advance(1_000);
    await deliver();
    await send(client, userMessage('dev', { taskId: task.id }));
    const done = await call(
      desk.app,
      'PATCH',
      `/work/${task.id}`,
      { status: 'completed', outcome: 'success', notes: 'pushed' },
      bot,
    );
    expect(done.status, done.text).toBe(200);
    clock.advance(1_000);
    await deliver();

    const got = receiver.received.filter((message) => message.path.endsWith('?push'));
    expect(got).toHaveLength(4);
    const events = got.map((message) => {
      expect(message.headers['x-a2a-notification-token']).toBe('tok-1');
      expect(message.headers.authorization).toBeUndefined();
      return StreamResponse.fromJSON(verified(SECRET, message));
    });
    const states = events.map(({ payload }) =>
      payload?.$case === 'statusUpdate' || payload?.$case === 'task' ? payload.value.status?.state : undefined,
    );
    expect(states).toEqual([
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_INPUT_REQUIRED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
    expect(events[0]!.payload).toMatchObject({
      $case: 'statusUpdate',
      value: { taskId: task.id, contextId: task.contextId, status: { state: TaskState.TASK_STATE_WORKING } },
    });
    const question = events[1]!.payload?.$case === 'statusUpdate' ? events[1]!.payload.value : undefined;
    expect(question).toMatchObject({ taskId: task.id, contextId: task.contextId });
    expect(question?.status?.message?.parts.map((part) => part.content)).toEqual([
      { $case: 'text', value: 'Which branch?' },
      { $case: 'data', value: { question_id: asked.body.id, options: ['main', 'dev'], asked_by: 'bot-1' } },
    ]);
    const last = events[3]!.payload;
    expect(last?.$case).toBe('task');
    const finished = last?.$case === 'task' ? last.value : undefined;
    expect(finished?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(finished?.artifacts[0]?.parts.map((part) => part.content)).toEqual([{ $case: 'text', value: 'pushed' }]);

    // Logged as the webhooks' deliveries are: the admin reads them on the endpoint.
    const [endpoint] = await endpointsOf(task.id);
    const log = await call(desk.app, 'GET', `/webhooks/${endpoint!.endpoint_id}/deliveries`, undefined, admin);
    expect(log.status, log.text).toBe(200);
    expect(
      log.body.map((delivery: { status: string }) => delivery.status),
      log.text,
    ).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);

    // Removed once the task has been over for the grace period, not before.
    expect(await sweep!()).toBe(0);
    clock.advance(8 * DAY_MS);
    expect(await sweep!()).toBe(1);
    expect(
      (await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }))
        .configs,
    ).toEqual([]);
  });

  it('sends the Authorization the config gives, and retries a failed delivery', async () => {
    const task = await send(client, userMessage('Push with auth', { metadata: { skill: 'push_auth' } }));
    await client.createTaskPushNotificationConfig(
      config(task.id, `${receiver.url}?auth`, { authentication: { scheme: 'Bearer', credentials: 'rcv-secret' } }),
    );
    receiver.answers.push({ status: 503 });
    await call(desk.app, 'POST', '/work/claim', { types: ['push_auth'] }, bot);
    clock.advance(1_000);
    await deliver();
    const auth = () => receiver.received.filter((message) => message.path.endsWith('?auth'));
    expect(auth()).toHaveLength(1);
    clock.advance(10_000);
    await deliver();
    const got = auth();
    expect(got).toHaveLength(2);
    expect(got[1]!.headers.authorization).toBe('Bearer rcv-secret');
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    expect(got[1]!.body).toBe(got[0]!.body);
  });

  it('gets, lists and deletes configs; the same id again replaces one; the item gone, they are', async () => {
    const task = await send(client, userMessage('Configs', { metadata: { skill: 'push_crud' } }));
    const a = await client.createTaskPushNotificationConfig(config(task.id, `${receiver.url}?a`, { id: 'a' }));
    await client.createTaskPushNotificationConfig(config(task.id, `${receiver.url}?b`, { id: 'b', token: '' }));
    const replaced = await client.createTaskPushNotificationConfig(
      config(task.id, `${receiver.url}?a2`, { id: 'a', token: 'tok-2' }),
    );
    expect(replaced).toMatchObject({ id: 'a', url: `${receiver.url}?a2`, token: 'tok-2' });
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'a' })).toEqual(replaced);
    const list = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(list.configs.map((made) => [made.id, made.url])).toEqual([
      ['a', `${receiver.url}?a2`],
      ['b', `${receiver.url}?b`],
    ]);
    expect(a.id).toBe('a');
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'a' });
    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'a' })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
    expect(await endpointsOf(task.id)).toHaveLength(1);
    const [left] = await endpointsOf(task.id);
    // Deleting the item removes its configs and their endpoints with it.
    expect((await call(desk.app, 'DELETE', `/work/${task.id}`, undefined, admin)).status).toBe(204);
    expect(await endpointsOf(task.id)).toEqual([]);
    expect((await call(desk.app, 'GET', `/webhooks/${left!.endpoint_id}`, undefined, admin)).status).toBe(404);
  });

  it("over HTTP+JSON too: made (201), read, listed and deleted (204) with the SDK's REST client", async () => {
    const rest = await a2aClient(restBase, adaToken, 'HTTP+JSON');
    const task = await send(rest, userMessage('Push over REST', { metadata: { skill: 'push_rest' } }));
    const made = await rest.createTaskPushNotificationConfig(config(task.id, `${receiver.url}?rest`, { id: 'r' }));
    expect(made).toMatchObject({ id: 'r', taskId: task.id, url: `${receiver.url}?rest`, token: 'tok-1' });
    expect(await rest.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'r' })).toEqual(made);
    const listed = await rest.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs).toEqual([made]);
    const raw = await fetch(`${restBase}/a2a/tasks/${task.id}/pushNotificationConfigs`, {
      method: 'POST',
      headers: { 'a2a-version': '1.0', authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 's', url: `${receiver.url}?rest2` }),
    });
    expect(raw.status).toBe(201);
    await rest.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'r' });
    const gone = await fetch(`${restBase}/a2a/tasks/${task.id}/pushNotificationConfigs/s`, {
      method: 'DELETE',
      headers: { 'a2a-version': '1.0', authorization: `Bearer ${adaToken}` },
    });
    expect(gone.status).toBe(204);
    expect(await endpointsOf(task.id)).toEqual([]);
  });

  it("finds no other caller's task, and refuses a bad url or secret as invalid params", async () => {
    const task = await send(client, userMessage('Mine', { metadata: { skill: 'push_mine' } }));
    await client.createTaskPushNotificationConfig(config(task.id, `${receiver.url}?mine`, { id: 'm' }));
    const notFound = { name: 'TaskNotFoundError' };
    await expect(other.createTaskPushNotificationConfig(config(task.id, receiver.url))).rejects.toMatchObject(notFound);
    await expect(other.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'm' })).rejects.toMatchObject(
      notFound,
    );
    await expect(
      other.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }),
    ).rejects.toMatchObject(notFound);
    await expect(
      other.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'm' }),
    ).rejects.toMatchObject(notFound);

    const malformed = { name: 'RequestMalformedError' };
    for (const url of ['not a url', 'http://10.0.0.1/hook', 'file:///etc/passwd', '']) {
      await expect(client.createTaskPushNotificationConfig(config(task.id, url))).rejects.toMatchObject(malformed);
    }
    await expect(
      client.createTaskPushNotificationConfig(
        config(task.id, receiver.url, { authentication: { scheme: 'StandardWebhooks', credentials: 'short' } }),
      ),
    ).rejects.toMatchObject(malformed);
    expect(await endpointsOf(task.id)).toHaveLength(1);
  });

  /** The item-scoped webhook endpoints of a task, read as the admin reads webhooks by id. */
  async function endpointsOf(taskId: string): Promise<{ endpoint_id: string }[]> {
    return desk.database.kysely
      .selectFrom('a2a_push_configs')
      .select('endpoint_id')
      .where('task_id', '=', taskId)
      .execute();
  }
});
