import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkApp } from '../../src/services/work.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { type TestApp, captureLogs, startWorkApp, testConfig } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { openTestDatabase } from '../support/databases.js';

// A wait for an answer on one instance ends when a person answers on another, woken
// by PostgreSQL's LISTEN/NOTIFY (the event hub's channel), never by polling. Two apps in this
// process, each with its own pool and listener, on one schema: what two processes would share.
// (The same across two real processes, with kill -9, is for test/process.)

const kinds = (await storesUnderTest()).filter((kind) => kind === 'postgres');

describe.skipIf(kinds.length === 0)('an answer on another instance', () => {
  let a: TestApp;
  let b: HttpApp;
  let second: Database;

  beforeAll(async () => {
    a = await startWorkApp('postgres');
    second = await openTestDatabase(a.testDatabase);
    b = await buildWorkApp({
      config: testConfig(a.testDatabase),
      database: second,
      logger: captureLogs('info').logger,
      webRoot: null,
    });
    await b.ready();
  });
  afterAll(async () => {
    await b?.close();
    await second?.close();
    await a?.close();
  });

  it('ends the wait on instance A, answered on B', async () => {
    const item = (await call(a.app, 'POST', '/work', { type: 'two', description: 'asked on A', agent: 'ada' })).body;
    expect((await call(a.app, 'PATCH', `/work/${item.id}`, { status: 'in_progress', agent: 'ada' })).status).toBe(200);
    const asked = await call(
      a.app,
      'POST',
      `/work/${item.id}/questions`,
      { question: 'Go?', options: ['yes', 'no'] },
      { 'x-user': 'ada' },
    );
    expect(asked.status, asked.text).toBe(201);

    // The wait is under way on A before B answers: B's commit reaches A only through NOTIFY.
    let settled = false;
    const waiting = call(a.app, 'GET', `/work/${item.id}/questions/${asked.body.id}?wait_s=30`).then((response) => {
      settled = true;
      return response;
    });
    for (let i = 0; i < 50 && !settled; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);

    const answered = await call(
      b,
      'POST',
      `/work/${item.id}/questions/${asked.body.id}/answer`,
      { option: 'yes' },
      { 'x-user': 'mia' },
    );
    expect(answered.status, answered.text).toBe(200);
    const waited = await waiting;
    expect(waited.body).toMatchObject({ status: 'answered', option: 'yes', answered_by: 'mia' });
    expect((await call(a.app, 'GET', `/work/${item.id}`)).body).toMatchObject({
      status: 'in_progress',
      assigned_agent: 'ada',
    });
  });
});
