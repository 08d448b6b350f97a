import type { AddressInfo } from 'node:net';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { a2aClient, collect, send, statesOf, userMessage, withToken } from './helpers.js';

// A2A's HTTP+JSON binding (/a2a/message:send, /a2a/tasks/{id}, …) through the official SDK's
// REST client: the same tasks as over JSON-RPC, its errors in A2A's REST error body. And a v0.3
// JSON-RPC client, through the SDK's compatibility transport, against POST /a2a.

/** A work type per test, so a claim takes that test's task and no other. */
const skill = (name: string) => ({ skill: `rest_${name}` });

describe.each(await storesUnderTest())('A2A over HTTP+JSON on %s', (kind) => {
  let desk: TestApp;
  let base: string;
  let client: Client;
  let other: Client;
  let adaToken: string;
  let otherToken: string;
  let bot: Record<string, string>;

  beforeAll(async () => {
    desk = await startWorkApp(kind, AUTH_ENV);
    await desk.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(desk.app.server.address() as AddressInfo).port}`;
    adaToken = (await mintToken(desk.app, { role: 'member', name: 'ada', agent: 'ada' })).token;
    client = await a2aClient(base, adaToken, 'HTTP+JSON');
    otherToken = (await mintToken(desk.app, { role: 'member', name: 'mia', agent: 'mia' })).token;
    other = await a2aClient(base, otherToken, 'HTTP+JSON');
    bot = bearer((await mintToken(desk.app, { role: 'agent', agent: 'bot-1' })).token);
  });
  afterAll(async () => desk?.close());

  it('names the HTTP+JSON interface on the card', async () => {
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces).toContainEqual(
      expect.objectContaining({ url: `${base}/a2a`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }),
    );
  });

  it('sends a task, reads it, lists it', async () => {
    const sent = await send(client, userMessage('Review PR 1', { metadata: skill('read') }));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const item = await call(desk.app, 'GET', `/work/${sent.id}`, undefined, bot);
    expect(item.body).toMatchObject({ type: 'rest_read', created_by: 'ada', description: 'Review PR 1' });

    const task = await client.getTask({ id: sent.id, tenant: '', historyLength: 5 });
    expect(task).toMatchObject({ id: sent.id, contextId: sent.contextId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);

    const listed = await client.listTasks({
      tenant: '',
      contextId: sent.contextId,
      status: TaskState.TASK_STATE_SUBMITTED,
      pageSize: 10,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((one) => one.id)).toEqual([sent.id]);
    const theirs = await other.listTasks({
      tenant: '',
      contextId: sent.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(theirs.tasks).toEqual([]);
  });

  it('cancels a queued task, refuses one in progress, hides another caller’s and an unknown id', async () => {
    const queued = await send(client, userMessage('Review PR 2', { metadata: skill('cancel') }));
    const cancelled = await client.cancelTask({ id: queued.id, tenant: '', metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    const working = await send(client, userMessage('Review PR 3', { metadata: skill('cancel') }));
    const claimed = await call(desk.app, 'POST', '/work/claim', { types: ['rest_cancel'] }, bot);
    expect(claimed.body.id).toBe(working.id);
    await expect(client.cancelTask({ id: working.id, tenant: '', metadata: undefined })).rejects.toMatchObject({
      name: 'TaskNotCancelableError',
    });
    await expect(other.getTask({ id: working.id, tenant: '' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(other.cancelTask({ id: working.id, tenant: '', metadata: undefined })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
    await expect(client.getTask({ id: 'no-such-task', tenant: '' })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
    await call(desk.app, 'PATCH', `/work/${working.id}`, { status: 'completed', outcome: 'success' }, bot);
  });

  it('streams a task’s changes made over the desk’s HTTP API, to its end', async () => {
    const stream = collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage('Review PR 4', { metadata: skill('stream') }),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    await expect.poll(() => stream.events.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const first = stream.events[0]!.payload;
    expect(first?.$case).toBe('task');
    const id = first?.$case === 'task' ? first.value.id : '';
    const claimed = await call(desk.app, 'POST', '/work/claim', { types: ['rest_stream'] }, bot);
    expect(claimed.body.id).toBe(id);
    await expect.poll(() => statesOf(stream.events).at(-1), { timeout: 10_000 }).toBe(TaskState.TASK_STATE_WORKING);
    const done = await call(
      desk.app,
      'PATCH',
      `/work/${id}`,
      { status: 'completed', outcome: 'success', notes: 'ok' },
      bot,
    );
    expect(done.status, done.text).toBe(200);
    await stream.done;
    expect(statesOf(stream.events)).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
    await expect(client.resubscribeTask({ id, tenant: '' }).next()).rejects.toMatchObject({
      name: 'UnsupportedOperationError',
    });
  });

  it('answers a malformed body, a wrong content type and a missing version in A2A’s error format', async () => {
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}/a2a/message:send`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'a2a-version': '1.0',
          authorization: `Bearer ${adaToken}`,
          ...headers,
        },
        body,
      });
      return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
    };
    const malformed = await post('{"message":');
    expect(malformed).toMatchObject({
      status: 400,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT' } },
    });
    expect(malformed.type).toMatch(/^application\/a2a\+json/);
    expect((await post('{}')).body).toMatchObject({ error: { code: 400, message: 'message is required' } });
    expect(await post('{}', { 'content-type': 'text/plain' })).toMatchObject({
      status: 415,
      body: { error: { code: 415, status: 'INVALID_ARGUMENT' } },
    });
    expect(await post('{}', { 'a2a-version': '0.3' })).toMatchObject({
      status: 400,
      body: { error: { status: 'FAILED_PRECONDITION' } },
    });
    const a2aJson = await post(
      JSON.stringify({
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'Review PR 5' }],
          metadata: skill('misc'),
        },
        configuration: { returnImmediately: true },
      }),
      {
        'content-type': 'application/a2a+json',
      },
    );
    expect(a2aJson).toMatchObject({ status: 200, body: { task: { status: { state: 'TASK_STATE_SUBMITTED' } } } });
  });

  it('push configs: without AGENTDESK_SECRET_KEY none can be made; an unknown one is not found', async () => {
    const task = await send(client, userMessage('No push here', { metadata: { skill: 'rest_push' } }));
    const headers = { 'a2a-version': '1.0', authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' };
    const made = await fetch(`${base}/a2a/tasks/${task.id}/pushNotificationConfigs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: 'https://example.org/hook' }),
    });
    expect(made.status).toBe(400);
    expect(await made.json()).toMatchObject({
      error: { status: 'FAILED_PRECONDITION', details: [{ reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' }] },
    });
    const listed = await fetch(`${base}/a2a/tasks/${task.id}/pushNotificationConfigs`, { headers });
    expect(listed.status).toBe(200);
    // Proto JSON leaves an empty list out.
    expect(((await listed.json()) as { configs?: unknown[] }).configs ?? []).toEqual([]);
    const missing = await fetch(`${base}/a2a/tasks/${task.id}/pushNotificationConfigs/none`, { headers });
    expect(missing.status).toBe(404);
    const others = await fetch(`${base}/a2a/tasks/${task.id}/pushNotificationConfigs`, {
      headers: { ...headers, authorization: `Bearer ${otherToken}` },
    });
    expect(others.status).toBe(404);
  });

  it('answers a method a path does not take with 405 and the methods it does', async () => {
    const headers = { 'a2a-version': '1.0', authorization: `Bearer ${adaToken}` };
    const get = await fetch(`${base}/a2a/message:send`, { headers });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const put = await fetch(`${base}/a2a/tasks/abc:cancel`, { method: 'PUT', headers });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')?.split(', ')).toContain('POST');
    expect((await fetch(`${base}/a2a/message:nothing`, { method: 'POST', headers })).status).toBe(404);
  });

  it('takes a v0.3 JSON-RPC client at POST /a2a', async () => {
    const legacy = new LegacyJsonRpcTransport({ endpoint: `${base}/a2a`, fetchImpl: withToken(adaToken) });
    const sent = await legacy.sendMessage({
      tenant: '',
      message: userMessage('Review PR 6', { metadata: skill('legacy') }),
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
      metadata: undefined,
    });
    if (!('status' in sent)) throw new Error('expected a task');
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const read = await legacy.getTask({ id: sent.id, tenant: '' });
    expect(read).toMatchObject({ id: sent.id, contextId: sent.contextId });
  });
});

describe.each(await storesUnderTest())('A2A streams kept alive on %s', (kind) => {
  it('a quiet stream gets a comment line at each heartbeat, on both bindings, until the client leaves', async () => {
    const desk = await startWorkApp(kind, AUTH_ENV, { a2aHeartbeatMs: 25 });
    try {
      await desk.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(desk.app.server.address() as AddressInfo).port}`;
      const token = (await mintToken(desk.app, { role: 'member', name: 'ada', agent: 'ada' })).token;
      const task = await send(await a2aClient(base, token, 'HTTP+JSON'), userMessage('Quiet', {}));
      const headers = { 'a2a-version': '1.0', authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const streams = [
        fetch(`${base}/a2a/tasks/${task.id}:subscribe`, { headers }),
        fetch(`${base}/a2a`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: task.id } }),
        }),
      ];
      for (const response of await Promise.all(streams)) {
        expect(response.headers.get('content-type')).toContain('text/event-stream');
        const reader = response.body!.getReader();
        let text = '';
        // The task first, then nothing happens to it: only heartbeats come.
        while ((text.match(/: keep-alive\n\n/g) ?? []).length < 2) {
          const { value, done } = await reader.read();
          expect(done).toBe(false);
          text += new TextDecoder().decode(value);
        }
        expect(text.startsWith('data: ')).toBe(true);
        await reader.cancel();
      }
    } finally {
      await desk.close();
    }
  });
});
