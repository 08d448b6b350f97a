import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/client/errors.js';
import { createInjectFetch } from '../../src/client/inject-fetch.js';
import { type WorkClient, createWorkClient } from '../../src/client/work-client.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';

// The typed client's people calls against a real work app on each store: a member keeps its own
// profile, an admin sees everyone's, `to` and watchers pass through the item and question calls.

const BASE = 'http://agentdesk.test';

describe.each(await storesUnderTest())('the people calls of the client on %s', (kind) => {
  let desk: TestApp;
  let admin: WorkClient;
  let mia: WorkClient;

  beforeAll(async () => {
    desk = await startWorkApp(kind, AUTH_ENV);
    const fetch = createInjectFetch(desk.app);
    admin = createWorkClient({ baseUrl: BASE, token: ADMIN_SECRET, fetch });
    mia = createWorkClient({
      baseUrl: BASE,
      token: (await mintToken(desk.app, { role: 'member', name: 'mia' })).token,
      fetch,
    });
  });
  afterAll(async () => desk?.close());

  it('puts, gets, lists and deletes a profile; another person is a 403 problem', async () => {
    const made = await mia.putPerson('mia', {
      email: 'mia@example.org',
      notify: 'digest',
      digest_at: '07:45',
      tz: 'Asia/Tokyo',
    });
    expect(made).toMatchObject({ name: 'mia', notify: 'digest', digest_at: '07:45', tz: 'Asia/Tokyo' });
    expect(await mia.getPerson('mia')).toEqual(made);
    await admin.putPerson('bob', { email: 'bob@example.org', notify: 'off' });
    expect((await admin.listPeople()).map((p) => p.name)).toEqual(['bob', 'mia']);
    expect((await mia.listPeople()).map((p) => p.name)).toEqual(['mia']);
    const refused = await mia.getPerson('bob').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).status).toBe(403);
    await mia.deletePerson('mia');
    expect((await admin.listPeople()).map((p) => p.name)).toEqual(['bob']);
  });

  it('carries watchers on items and projects and `to` on a question', async () => {
    const project = await admin.createProject({ name: `people-${kind}`, watchers: ['bob'], escalate_to: ['mia'] });
    expect(project).toMatchObject({ watchers: ['bob'], escalate_to: ['mia'], answer_within_s: null });
    const item = await admin.submitWork({ type: 'p', description: 'd', agent: 'ada', watchers: ['mia'] });
    expect(item.watchers).toEqual(['mia']);
    const asked = await admin.askQuestion(item.id, { question: 'which?', to: ['bob'] });
    expect(asked.to).toEqual(['bob']);
  });
});
