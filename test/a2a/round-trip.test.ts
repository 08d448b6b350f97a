import type { AddressInfo } from 'node:net';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { a2aClient, collect, send, statesOf, userMessage } from './helpers.js';

// The official A2A SDK's client against the desk: it reads the card, sends a task, follows it on a
// stream while an agent claims it over HTTP and asks the requester (an agent too) a question
// addressed to @creator, answers with SendMessage{taskId}, and sees the task completed with its
// outcome as an artifact.

const SKILLS = 'code_review,release';

describe.each(await storesUnderTest())('the desk as an A2A agent on %s', (kind) => {
  let desk: TestApp;
  let base: string;
  let client: Client;
  let other: Client;
  let bot: Record<string, string>;

  beforeAll(async () => {
    desk = await startWorkApp(kind, { ...AUTH_ENV, A2A_SKILLS: SKILLS });
    await desk.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(desk.app.server.address() as AddressInfo).port}`;
    // The requester is itself an agent: it answers the questions addressed to @creator.
    client = await a2aClient(base, (await mintToken(desk.app, { role: 'agent', name: 'ada', agent: 'ada' })).token);
    other = await a2aClient(base, (await mintToken(desk.app, { role: 'member', name: 'mia', agent: 'mia' })).token);
    bot = bearer((await mintToken(desk.app, { role: 'agent', agent: 'bot-1' })).token);
  });
  afterAll(async () => desk?.close());

  it('serves the card: its JSON-RPC interface, bearer tokens, one skill per work type', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('agentdesk');
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${base}/a2a`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(card.capabilities?.streaming).toBe(true);
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
    expect(card.skills.map((skill) => skill.id)).toEqual(SKILLS.split(','));
  });

  it('runs a task to INPUT_REQUIRED and on to COMPLETED with its artifact', async () => {
    const sent = await send(client, userMessage('Release 1.4 to an environment', { metadata: { skill: 'release' } }));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(sent.contextId).not.toBe('');
    const item = await call(desk.app, 'GET', `/work/${sent.id}`, undefined, bot);
    expect(item.body).toMatchObject({
      type: 'release',
      created_by: 'ada',
      description: 'Release 1.4 to an environment',
    });

    const stream = collect(client.resubscribeTask({ id: sent.id, tenant: '' }));
    const claimed = await call(desk.app, 'POST', '/work/claim', { types: ['release'] }, bot);
    expect(claimed.body.id).toBe(sent.id);
    await call(desk.app, 'POST', `/work/${sent.id}/comments`, { body: 'building', kind: 'progress' }, bot);
    const asked = await call(
      desk.app,
      'POST',
      `/work/${sent.id}/questions`,
      { question: 'Prod or staging?', options: ['prod', 'staging'], to: ['@creator'] },
      bot,
    );
    expect(asked.status, asked.text).toBe(201);
    await expect
      .poll(() => statesOf(stream.events).at(-1), { timeout: 10_000 })
      .toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const waiting = stream.events.at(-1)!.payload;
    expect(waiting?.$case).toBe('statusUpdate');
    const status = waiting?.$case === 'statusUpdate' ? waiting.value.status : undefined;
    expect(status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'Prod or staging?' });
    expect(status?.message?.parts[1]?.content).toMatchObject({
      $case: 'data',
      value: { options: ['prod', 'staging'] },
    });

    const answered = await send(client, userMessage('staging', { taskId: sent.id, contextId: sent.contextId }));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const question = await call(desk.app, 'GET', `/work/${sent.id}/questions/${asked.body.id}`, undefined, bot);
    expect(question.body).toMatchObject({ status: 'answered', option: 'staging', answered_by: 'ada' });

    await call(
      desk.app,
      'POST',
      `/work/${sent.id}/comments`,
      { body: 'released', links: [{ url: 'https://ci.example.org/1', title: 'the run' }] },
      bot,
    );
    const done = await call(
      desk.app,
      'PATCH',
      `/work/${sent.id}`,
      { status: 'completed', outcome: 'success', notes: 'on staging' },
      bot,
    );
    expect(done.status, done.text).toBe(200);
    await stream.done;
    expect(statesOf(stream.events).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = stream.events.find((event) => event.payload?.$case === 'artifactUpdate')?.payload;
    const parts = artifact?.$case === 'artifactUpdate' ? artifact.value.artifact?.parts : [];
    expect(parts?.map((part) => part.content)).toEqual([
      { $case: 'text', value: 'on staging' },
      { $case: 'url', value: 'https://ci.example.org/1' },
    ]);

    const task = await client.getTask({ id: sent.id, tenant: '', historyLength: 2 });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts).toHaveLength(1);
    expect(task.history).toHaveLength(2);
    const listed = await client.listTasks({
      tenant: '',
      contextId: sent.contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(listed.tasks.map((one) => one.id)).toEqual([sent.id]);
  });

  it('cancels a queued task, refuses one in progress, and hides another caller’s', async () => {
    const queued = await send(client, userMessage('Review PR 7', { metadata: { skill: 'code_review' } }));
    const cancelled = await client.cancelTask({ id: queued.id, tenant: '', metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    const working = await send(client, userMessage('Review PR 8', { metadata: { skill: 'code_review' } }));
    const claimed = await call(desk.app, 'POST', '/work/claim', { types: ['code_review'] }, bot);
    expect(claimed.body.id).toBe(working.id);
    await expect(client.cancelTask({ id: working.id, tenant: '', metadata: undefined })).rejects.toMatchObject({
      name: 'TaskNotCancelableError',
    });
    await expect(other.getTask({ id: working.id, tenant: '' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(other.cancelTask({ id: working.id, tenant: '', metadata: undefined })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });
  });

  it('rejects a skill the card does not name, and a message the desk refuses', async () => {
    const unknown = await send(client, userMessage('Paint the shed', { metadata: { skill: 'painting' } }));
    expect(unknown.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(JSON.stringify(unknown.status?.message?.parts)).toContain('painting');
    const empty = await send(client, userMessage(' ', { metadata: { skill: 'release' } }));
    expect(empty.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
  });

  it('answers malformed JSON-RPC with the spec’s codes, never a 500', async () => {
    const post = async (body: string) => {
      const response = await fetch(`${base}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...bot },
        body,
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: number } } };
    };
    expect(await post('{"jsonrpc":')).toMatchObject({ status: 400, body: { error: { code: -32700 } } });
    expect((await post('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":[]}')).body.error?.code).toBe(-32602);
    expect((await post('{"jsonrpc":"2.0","id":1,"method":"NoSuchMethod","params":{}}')).body.error?.code).toBe(-32601);
    expect((await post('{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}')).body.error?.code).toBe(
      -32001,
    );
  });
});
