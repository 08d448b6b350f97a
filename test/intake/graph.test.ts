import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { dumpDatabase } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { FAKE_ANSWER, type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { type FakeGraph, startFakeGraph } from '../support/fake-graph.js';
import { call } from '../support/http.js';
import { SECRET_KEY } from '../support/intake.js';
import { waitFor } from '../support/mail.js';

// Microsoft 365 ("kind": "graph"): the client-credentials token, the delta query with
// its pages and delta link, 429 with Retry-After, an expired token, against a fake Graph that
// speaks the documented protocol over real HTTP (Microsoft cannot be reached from here).

const CLIENT_SECRET = 'graph-client-secret-never-in-clear~9Qx';
const NEWSLETTER = {
  ...FAKE_ANSWER,
  needs_action: false,
  category: 'newsletter',
  priority: 'low',
  task_description: null,
};

const stores = await storesUnderTest();

function graphMessage(subject: string, extra: Record<string, unknown> = {}) {
  return {
    subject,
    internetMessageId: `<${subject.replace(/\W+/g, '-')}-${Math.random().toString(36).slice(2)}@contoso.com>`,
    conversationId: `conv-${Math.random().toString(36).slice(2)}`,
    body: { contentType: 'html', content: `<p>${subject}: please take care of it.</p>` },
    from: { emailAddress: { name: 'Dana Swope', address: 'dana@contoso.com' } },
    toRecipients: [{ emailAddress: { address: 'support@contoso.com' } }],
    sentDateTime: new Date().toISOString(),
    hasAttachments: false,
    ...extra,
  };
}

describe.each(stores)('graph mailboxes on %s', (kind) => {
  let graph: FakeGraph;
  let fake: FakeLlm;
  let t: TestApp;

  beforeAll(async () => {
    graph = await startFakeGraph({
      tenant: 'contoso-tenant',
      clientId: 'app-123',
      clientSecret: CLIENT_SECRET,
      address: 'support@contoso.com',
      pageSize: 4,
    });
    fake = await startFakeLlm();
    fake.setAnswerer((prompt) => (/<email_subject>[^<]*newsletter/i.test(prompt) ? NEWSLETTER : null));
    t = await startWorkApp(kind, {
      AGENTDESK_SECRET_KEY: SECRET_KEY,
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: fake.openaiBaseUrl,
      LLM_API_KEY: 'sk-fake-graph',
      LLM_MAX_RETRIES: '0',
      INTAKE_POLL_S: '1',
      INTAKE_RECONNECT_MAX_S: '1',
      INTAKE_GRAPH_URL: graph.graphUrl,
      INTAKE_GRAPH_LOGIN_URL: graph.loginUrl,
    });
  });
  afterAll(async () => {
    await t?.close();
    await graph?.close();
    await fake?.close();
  });

  const body = (extra: Record<string, unknown> = {}) => ({
    name: 'Contoso support',
    kind: 'graph',
    tenant_id: 'contoso-tenant',
    client_id: 'app-123',
    client_secret: CLIENT_SECRET,
    address: 'support@contoso.com',
    ...extra,
  });
  const test = async (id: string) => (await call(t.app, 'POST', `/mailboxes/${id}/test`)).body;
  const log = async (id: string) => (await call(t.app, 'GET', `/mailboxes/${id}/messages?limit=500`)).body as any[];

  it('checks what a graph mailbox needs, and names the failed stage of the connection test', async () => {
    const missing = await call(t.app, 'POST', '/mailboxes', body({ client_secret: undefined }));
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toContainEqual({ field: 'client_secret', message: 'is required for a graph mailbox' });
    expect((await call(t.app, 'POST', '/mailboxes', body({ host: 'imap.contoso.com' }))).status).toBe(422);
    expect((await call(t.app, 'POST', '/mailboxes', body({ password: 'x' }))).status).toBe(422);

    const good = await call(t.app, 'POST', '/mailboxes', body({ enabled: false }));
    expect(good.status, good.text).toBe(201);
    expect(good.body).toMatchObject({
      kind: 'graph',
      folder: 'inbox',
      auth: 'client_secret',
      has_secret: true,
      host: null,
    });
    expect(await test(good.body.id)).toMatchObject({ ok: true, stage: null, folder: { path: 'Inbox' } });

    const wrongSecret = (await call(t.app, 'POST', '/mailboxes', body({ client_secret: 'wrong', enabled: false }))).body
      .id;
    expect(await test(wrongSecret)).toMatchObject({
      ok: false,
      stage: 'login',
      message: expect.stringContaining('invalid_client'),
    });
    const wrongFolder = (await call(t.app, 'POST', '/mailboxes', body({ folder: 'Archive', enabled: false }))).body.id;
    expect(await test(wrongFolder)).toMatchObject({
      ok: false,
      stage: 'folder',
      message: expect.stringContaining('ErrorItemNotFound'),
    });
  });

  it('takes in new mail through delta rounds and pages, honours 429 Retry-After, survives an expired token', async () => {
    // Mail from before the mailbox existed is not taken in.
    const lastYear = new Date(Date.now() - 365 * 86_400_000).toISOString();
    graph.add(graphMessage('Old request from last year', { receivedDateTime: lastYear }), 'inbox');
    const created = await call(t.app, 'POST', '/mailboxes', body({ name: `live ${kind}` }));
    const id = created.body.id;
    await waitFor('the idle state', async () => (await call(t.app, 'GET', `/mailboxes/${id}`)).body.state === 'idle');

    const first = graph.add(
      graphMessage('Approve the travel budget', { receivedDateTime: new Date(Date.now() + 1_000).toISOString() }),
    );
    const newsletters = Array.from({ length: 5 }, (_, n) =>
      graph.add(
        graphMessage(`Contoso newsletter ${n}`, { receivedDateTime: new Date(Date.now() + 1_000).toISOString() }),
      ),
    );
    graph.throttle(2, 1);
    const throttledAt = Date.now();
    await waitFor('six messages in the log', async () => (await log(id)).length === 6, 15_000);
    const entries = await log(id);
    expect(entries.filter((entry) => entry.action === 'recorded')).toHaveLength(5);
    const task = entries.find((entry) => entry.action === 'created');
    expect(task).toMatchObject({ source: 'graph', source_ref: `graph:${first}`, category: 'action_required' });
    expect(newsletters.every((mid) => entries.some((entry) => entry.source_ref === `graph:${mid}`))).toBe(true);
    // The 429s were waited out as asked, then the same request went through.
    const throttled = graph.requests.filter((request) => request.status === 429 && request.at >= throttledAt);
    expect(throttled).toHaveLength(2);
    const after = graph.requests.find(
      (request) => request.status === 200 && request.at > throttled[1]!.at && request.path.endsWith('/delta'),
    );
    expect(after!.at - throttled[1]!.at).toBeGreaterThanOrEqual(900);
    // Six messages in pages of four: a round needed a nextLink.
    expect(graph.requests.some((request) => request.query.has('$skiptoken'))).toBe(true);
    expect(graph.requests.some((request) => request.query.has('$deltatoken'))).toBe(true);

    // A reply in the same conversation lands on the item; a message changed (read) is not taken in twice.
    const item = (await call(t.app, 'GET', `/work/${task.work_item_id}`)).body;
    const conversation = item.payload.email.conversation_id;
    graph.expireTokens();
    const issued = graph.tokensIssued();
    graph.update(first, { isRead: true });
    const reply = graph.add(
      graphMessage('RE: Approve the travel budget', {
        conversationId: conversation,
        body: { contentType: 'text', content: 'Also the hotel, please.' },
      }),
    );
    await waitFor(
      'the reply in the log',
      async () => (await log(id)).find((entry) => entry.source_ref === `graph:${reply}`),
      15_000,
    );
    expect((await log(id)).find((entry) => entry.source_ref === `graph:${reply}`)).toMatchObject({
      action: 'noted',
      work_item_id: item.id,
    });
    expect((await call(t.app, 'GET', `/work/${item.id}/comments`)).body[0]).toMatchObject({
      kind: 'email',
      body: expect.stringContaining('Also the hotel, please.'),
    });
    expect(graph.tokensIssued()).toBeGreaterThan(issued);
    const mailbox = (await call(t.app, 'GET', `/mailboxes/${id}`)).body;
    expect(mailbox.counts).toMatchObject({ seen: 7, items_created: 1, notes_added: 1 });
    expect((await log(id)).some((entry) => /Old request/.test(entry.subject))).toBe(false);

    const dump = await dumpDatabase(t.database);
    expect(dump).not.toContain(CLIENT_SECRET);
    expect(t.logs.text()).not.toContain(CLIENT_SECRET);
    expect(JSON.stringify((await call(t.app, 'GET', '/mailboxes')).body)).not.toContain(CLIENT_SECRET);
  });

  it('cleans U+0000 and lone surrogates out of Graph messages, and goes on with the next one', async () => {
    const id = (await call(t.app, 'POST', '/mailboxes', body({ name: `nul ${kind}` }))).body.id;
    await waitFor('the idle state', async () => (await call(t.app, 'GET', `/mailboxes/${id}`)).body.state === 'idle');
    const receivedDateTime = new Date(Date.now() + 1_000).toISOString();
    const dirty = graph.add(
      graphMessage('Please pay invoice 42\u0000 by Friday', {
        receivedDateTime,
        internetMessageId: '<graph-nul\u0000@contoso.com>',
        from: { emailAddress: { name: 'Al\u0000ice\ud800', address: 'alice@contoso.com' } },
        body: { contentType: 'text', content: 'Please pay\u0000 it.' },
      }),
    );
    const next = graph.add(graphMessage('Order the badges', { receivedDateTime }));
    await waitFor('both in the log', async () => (await log(id)).length === 2, 15_000);
    const entries = await log(id);
    expect(entries.find((entry) => entry.source_ref === `graph:${dirty}`)).toMatchObject({
      status: 'done',
      action: 'created',
      subject: 'Please pay invoice 42 by Friday',
      message_id: '<graph-nul@contoso.com>',
    });
    expect(entries.find((entry) => entry.source_ref === `graph:${next}`)).toMatchObject({
      status: 'done',
      action: 'created',
    });
    const item = (
      await call(t.app, 'GET', `/work/${entries.find((entry) => entry.source_ref === `graph:${dirty}`).work_item_id}`)
    ).body;
    expect(item.payload.email.from).toEqual({ name: 'Alice\ufffd', address: 'alice@contoso.com' });
    expect((await call(t.app, 'GET', `/mailboxes/${id}`)).body).toMatchObject({
      last_error: null,
      counts: { failed: 0 },
    });
  });
});
