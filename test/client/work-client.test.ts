import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemError, UnreachableError } from '../../src/client/errors.js';
import type { FetchLike } from '../../src/client/http.js';
import { createInjectFetch } from '../../src/client/inject-fetch.js';
import { type WorkClient, createWorkClient } from '../../src/client/work-client.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { freePort } from '../support/processes.js';

// The typed client against a real work app on each store, through the in-process fetch the
// MCP server uses; every route it knows is checked against the OpenAPI document.

const BASE = 'http://agentdesk.test';

describe.each(await storesUnderTest())('the work client on %s', (kind) => {
  let desk: TestApp;
  let admin: WorkClient;
  let bot: WorkClient;
  let other: WorkClient;

  beforeAll(async () => {
    desk = await startWorkApp(kind, AUTH_ENV);
    const fetch = createInjectFetch(desk.app);
    admin = createWorkClient({ baseUrl: BASE, token: ADMIN_SECRET, fetch });
    bot = createWorkClient({
      baseUrl: BASE,
      token: (await mintToken(desk.app, { role: 'agent', agent: 'bot-1' })).token,
      fetch,
    });
    other = createWorkClient({
      baseUrl: BASE,
      token: (await mintToken(desk.app, { role: 'agent', agent: 'bot-2', name: 'b2' })).token,
      fetch,
    });
  });
  afterAll(async () => desk?.close());

  it('runs the agent loop: submit, claim, heartbeat, note, complete; lists page by cursor', async () => {
    const project = await admin.createProject({ name: `client-${kind}` });
    const submitted = await admin.submitWork(
      { type: 'client_test', description: 'first', project_id: project.id, payload: { n: 1 } },
      { idempotencyKey: 'k-1' },
    );
    const again = await admin.submitWork(
      { type: 'client_test', description: 'first', project_id: project.id, payload: { n: 1 } },
      { idempotencyKey: 'k-1' },
    );
    expect(again.id).toBe(submitted.id);
    await admin.submitWork({ type: 'client_test', description: 'second' });

    const session = await bot.session();
    expect(session.principal?.agent).toBe('bot-1');

    const claimed = await bot.claimWork({ agent: 'bot-1', types: ['client_test'] });
    expect(claimed?.status).toBe('in_progress');
    expect(claimed?.assigned_agent).toBe('bot-1');
    const beat = await bot.heartbeat(claimed!.id, { agent: 'bot-1', lease_s: 600 });
    expect(beat.lease_expires_at).not.toBeNull();

    const noted = await bot.appendNote(beat.id, 'halfway');
    const blocked = await bot.appendNote(beat.id, 'waiting for a reviewer', { status: 'blocked' });
    expect(blocked.status).toBe('blocked');
    expect(blocked.notes).toBe('halfway\n\nwaiting for a reviewer');
    expect(blocked.version).toBeGreaterThan(noted.version);

    const resumed = await bot.updateWork(beat.id, { status: 'in_progress' }, { ifMatch: blocked.version });
    const done = await bot.updateWork(
      beat.id,
      { status: 'completed', outcome: 'success' },
      { ifMatch: resumed.version },
    );
    expect(done.outcome).toBe('success');
    expect((await bot.getWork(done.id)).dispatch_log).toHaveLength(1);

    const first = await admin.listWork({ type: 'client_test', limit: 1 });
    expect(first.items).toHaveLength(1);
    expect(first.next_cursor).not.toBeNull();
    const second = await admin.listWork({ type: 'client_test', limit: 1, cursor: first.next_cursor! });
    expect(second.items).toHaveLength(1);
    expect(second.items[0]!.id).not.toBe(first.items[0]!.id);
    expect(second.next_cursor).toBeNull();
    expect((await admin.listAgentWork('bot-1')).items.map((item) => item.id)).toContain(done.id);
    expect((await admin.countWork({ type: 'client_test' })).completed).toBe(1);

    expect(await bot.claimWork({ agent: 'bot-1', types: ['nothing_of_this_type'] })).toBeNull();

    const renamed = await admin.updateProject(project.id, { name: `client-${kind}-renamed` });
    expect((await admin.getProject(project.id)).name).toBe(renamed.name);
    expect((await admin.listProjects()).map((p) => p.id)).toContain(project.id);
  });

  it('refusals come back as ProblemError with the problem document', async () => {
    const item = await admin.submitWork({ type: 'client_test', description: 'to refuse', agent: 'bot-1' });
    // Another agent's item: 403.
    const forbidden = await other.updateWork(item.id, { status: 'in_progress' }).catch((error: unknown) => error);
    expect(forbidden).toBeInstanceOf(ProblemError);
    expect((forbidden as ProblemError).status).toBe(403);
    expect((forbidden as ProblemError).problem.detail).toMatch(/bot-2/);
    // An illegal move: 409, with the statuses the item may move to.
    const conflict = (await bot
      .updateWork(item.id, { status: 'completed', outcome: 'success' })
      .catch((error: unknown) => error)) as ProblemError;
    expect(conflict.status).toBe(409);
    expect(conflict.title).toBe('Conflict');
    // A stale version: 412.
    const stale = (await bot
      .updateWork(item.id, { status: 'in_progress' }, { ifMatch: 999 })
      .catch((e: unknown) => e)) as ProblemError;
    expect(stale.status).toBe(412);
    // A bad field: 422 with the field named.
    const invalid = (await admin
      .submitWork({ type: 'bad type!', description: 'x' })
      .catch((e: unknown) => e)) as ProblemError;
    expect(invalid.status).toBe(422);
    expect(invalid.errors?.map((error) => error.field).join(' ')).toMatch(/type/);
    const missing = (await admin
      .getWork('00000000-0000-4000-8000-000000000000')
      .catch((e: unknown) => e)) as ProblemError;
    expect(missing.status).toBe(404);
  });

  it('appendNote keeps a note written between its read and its write', async () => {
    const item = await admin.submitWork({ type: 'client_test', description: 'race', agent: 'bot-1' });
    const inner = createInjectFetch(desk.app);
    let raced = false;
    // The first PATCH is preceded by someone else's note, so the client's If-Match is stale.
    const racing: FetchLike = async (url, init) => {
      if (init.method === 'PATCH' && !raced) {
        raced = true;
        await admin.updateWork(item.id, { notes: 'written meanwhile' });
      }
      return inner(url, init);
    };
    const client = createWorkClient({ baseUrl: BASE, token: ADMIN_SECRET, fetch: racing });
    const noted = await client.appendNote(item.id, 'mine');
    expect(raced).toBe(true);
    expect(noted.notes).toBe('written meanwhile\n\nmine');
  });

  it('tokens: create, get, list, revoke; a revoked token is refused with 401', async () => {
    const created = await admin.createToken({ name: 'client-made', role: 'viewer' });
    expect(created.token).toMatch(/^adk_/);
    expect((await admin.getToken(created.id)).name).toBe('client-made');
    expect((await admin.listTokens()).map((t) => t.id)).toContain(created.id);
    const viewer = createWorkClient({ baseUrl: BASE, token: created.token, fetch: createInjectFetch(desk.app) });
    expect((await viewer.listWork({ limit: 1 })).items.length).toBeLessThanOrEqual(1);
    await admin.revokeToken(created.id);
    const refused = (await viewer.listWork().catch((e: unknown) => e)) as ProblemError;
    expect(refused).toBeInstanceOf(ProblemError);
    expect(refused.status).toBe(401);
  });

  it('submits a plan (idempotent with a key) and reads it back: children, and the tree cut by depth and by size', async () => {
    const body = {
      parent: { type: 'client_plan', description: 'the plan' },
      steps: [
        { key: 'a', type: 'client_plan', description: 'a' },
        { key: 'b', type: 'client_plan', description: 'b', depends_on_keys: ['a'] },
        { key: 'c', type: 'client_plan', description: 'c', depends_on_keys: ['a', 'b'] },
      ],
    };
    const plan = await admin.submitPlan(body, { idempotencyKey: 'plan-1' });
    expect(await admin.submitPlan(body, { idempotencyKey: 'plan-1' })).toEqual(plan);
    const nested = await admin.submitWork({ type: 'client_plan', description: 'under b', parent_id: plan.steps.b! });
    expect((await admin.children(plan.parent.id)).map((item) => item.id).sort()).toEqual(
      Object.values(plan.steps).sort(),
    );
    expect((await admin.dependents(plan.steps.a!)).map((item) => item.id).sort()).toEqual(
      [plan.steps.b, plan.steps.c].sort(),
    );

    const tree = await admin.tree(plan.parent.id);
    expect(tree.item.id).toBe(plan.parent.id);
    expect(tree.truncated).toBe(false);
    expect(tree.children.map((child) => child.item.id).sort()).toEqual(Object.values(plan.steps).sort());
    const b = tree.children.find((child) => child.item.id === plan.steps.b)!;
    expect(b.children.map((child) => child.item.id)).toEqual([nested.id]);
    expect(b.children[0]).toMatchObject({ children: [], truncated: false });

    const shallow = await admin.tree(plan.parent.id, { depth: 1 });
    expect(shallow.children.find((child) => child.item.id === plan.steps.b)).toMatchObject({
      children: [],
      truncated: true,
    });
    const small = await admin.tree(plan.parent.id, { maxItems: 3 });
    expect(small.children).toHaveLength(2);
    expect(small.truncated).toBe(true);
  });

  it('every route the client calls is in the OpenAPI document, with the method it uses', async () => {
    const calls: Array<{ method: string; path: string }> = [];
    const recording: FetchLike = async (url, init) => {
      calls.push({ method: init.method ?? 'GET', path: new URL(url).pathname });
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const client = createWorkClient({ baseUrl: BASE, fetch: recording });
    const id = '11111111-1111-4111-8111-111111111111';
    await client.session();
    await client.health();
    await client.listWork();
    await client.listAgentWork('bot-1');
    await client.countWork();
    await client.getWork(id);
    await client.submitWork({ type: 't', description: 'd' });
    await client.dependents(id);
    await client.submitPlan({
      parent: { type: 't', description: 'd' },
      steps: [{ key: 'k', type: 't', description: 'd' }],
    });
    await client.claimWork({ agent: 'a' });
    await client.heartbeat(id, { agent: 'a' });
    await client.updateWork(id, { status: 'queued' });
    await client.deleteWork(id);
    await client.listProjects();
    await client.getProject(id);
    await client.createProject({ name: 'p' });
    await client.updateProject(id, { name: 'p' });
    await client.listTokens();
    await client.getToken(id);
    await client.createToken({ name: 'n', role: 'viewer' });
    await client.revokeToken(id);
    await client.addComment(id, { body: 'b' });
    await client.listComments(id);
    await client.deleteComment(id, id);
    await client.askQuestion(id, { question: 'q' });
    await client.getQuestion(id, id, { wait_s: 1 });
    await client.listItemQuestions(id);
    await client.answerQuestion(id, id, { answer: 'a' });
    await client.listQuestions();
    await client.countQuestions();
    await client.listPeople();
    await client.getPerson('mia');
    await client.putPerson('mia', { email: 'mia@example.org', notify: 'digest', digest_at: '08:00' });
    await client.deletePerson('mia');
    await client.listSchedules({ enabled: 'true' });
    await client.getSchedule(id);
    await client.createSchedule({ name: 'n', cron: '@daily', tz: 'UTC', item: { type: 't', description: 'd' } });
    await client.updateSchedule(id, { enabled: false });
    await client.deleteSchedule(id);
    await client.runSchedule(id);
    await client.previewSchedule({ cron: '@daily', tz: 'UTC' });

    const document = desk.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
    const missing = calls.filter(({ method, path }) => {
      // The most specific template wins (/work/counts before /work/{id}).
      const match = templates
        .filter(({ pattern }) => pattern.test(path))
        .sort((a, b) => a.template.split('{').length - b.template.split('{').length)[0];
      return !match || !(method.toLowerCase() in (document.paths[match.template] ?? {}));
    });
    expect(missing).toEqual([]);
    expect(calls).toHaveLength(41);
  });
});

describe('the work client without a service', () => {
  it('a port nobody listens on is an UnreachableError naming the address', async () => {
    const port = await freePort();
    const client = createWorkClient({ baseUrl: `http://127.0.0.1:${port}` });
    const error = await client.listWork().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it('an answer that is not JSON is an UnreachableError too (not agentdesk on that port)', async () => {
    const client = createWorkClient({
      baseUrl: 'http://elsewhere.test',
      fetch: async () => new Response('<html>hello</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    });
    await expect(client.listProjects()).rejects.toBeInstanceOf(UnreachableError);
  });

  it('an error page that is not a problem document still becomes a ProblemError with its status', async () => {
    const client = createWorkClient({
      baseUrl: 'http://elsewhere.test',
      fetch: async () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }),
    });
    const error = (await client.listProjects().catch((e: unknown) => e)) as ProblemError;
    expect(error).toBeInstanceOf(ProblemError);
    expect(error.status).toBe(502);
    expect(error.detail).toContain('Bad gateway');
  });
});
