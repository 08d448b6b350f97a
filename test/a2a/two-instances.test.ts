import type { AddressInfo } from 'node:net';
import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkApp } from '../../src/services/work.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { type TestApp, captureLogs, startWorkApp, testConfig } from '../support/apps.js';
import { AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { openTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { a2aClient, collect, send, statesOf, userMessage } from './helpers.js';

// Two instances on one PostgreSQL: a task's stream on A follows the changes an agent makes on B
// (B's commits reach A through the event hub's notification).

const postgres = (await storesUnderTest()).filter((kind) => kind === 'postgres');

describe.each(postgres)('an A2A stream across two instances on %s', (kind) => {
  let a: TestApp;
  let b: HttpApp;
  let closeB = async () => {};

  beforeAll(async () => {
    a = await startWorkApp(kind, AUTH_ENV);
    await a.app.listen({ port: 0, host: '127.0.0.1' });
    const database = await openTestDatabase(a.testDatabase);
    b = await buildWorkApp({
      config: testConfig(a.testDatabase, AUTH_ENV),
      database,
      logger: captureLogs('warn').logger,
    });
    await b.ready();
    closeB = async () => {
      await b.close();
      await database.close();
    };
  }, 60_000);
  afterAll(async () => {
    await closeB();
    await a?.close();
  });

  it('the stream on A sees the claim and the completion made on B', async () => {
    const base = `http://127.0.0.1:${(a.app.server.address() as AddressInfo).port}`;
    const client = await a2aClient(base, (await mintToken(a.app, { role: 'member', name: 'ada', agent: 'ada' })).token);
    const bot = bearer((await mintToken(b, { role: 'agent', agent: 'bot-2' })).token);
    const sent = await send(client, userMessage('Translate the notice', { metadata: { skill: 'translate' } }));
    const stream = collect(client.resubscribeTask({ id: sent.id, tenant: '' }));
    await expect.poll(() => stream.events.length, { timeout: 10_000 }).toBeGreaterThan(0);

    expect((await call(b, 'POST', '/work/claim', { types: ['translate'] }, bot)).body.id).toBe(sent.id);
    await expect.poll(() => statesOf(stream.events).at(-1), { timeout: 10_000 }).toBe(TaskState.TASK_STATE_WORKING);
    const done = await call(
      b,
      'PATCH',
      `/work/${sent.id}`,
      { status: 'completed', outcome: 'success', notes: 'done' },
      bot,
    );
    expect(done.status, done.text).toBe(200);
    await stream.done;
    expect(statesOf(stream.events)).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
  });
});
