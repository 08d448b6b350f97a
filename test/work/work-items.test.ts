import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { inlineRefs } from '../fuzz/openapi-operations.js';
import { ISO_MS, UUID_RE, call } from '../support/http.js';

const WORK_ITEM_FIELDS = [
  'id',
  'type',
  'description',
  'priority',
  'status',
  'assigned_agent',
  'created_by',
  'created_at',
  'updated_at',
  'completed_at',
  'outcome',
  'notes',
  'payload',
  'project_id',
  'version',
  'attempts',
  'max_attempts',
  'retry_delay_s',
  'run_after',
  'lease_expires_at',
  'parent_id',
  'waiting_on',
  'dispatch_log',
  'comment_count',
  'review_required',
  'watchers',
].sort();

const NO_PLAN = {
  depends_on: [],
  blocked_by: [],
  children: { total: 0, queued: 0, active: 0, completed: 0, failed: 0, cancelled: 0 },
};

describe.each(await storesUnderTest())('work items on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t.close());

  const post = (body: unknown, headers: Record<string, string> = {}) => call(t.app, 'POST', '/work', body, headers);

  describe('POST /work', () => {
    it('creates a queued item with every field present and a Location header', async () => {
      const response = await post({ type: 'bug_fix', description: 'Fix the login redirect' });
      expect(response.status).toBe(201);
      const item = response.body;
      expect(Object.keys(item).sort()).toEqual(WORK_ITEM_FIELDS);
      expect(item).toMatchObject({
        type: 'bug_fix',
        description: 'Fix the login redirect',
        priority: 3,
        status: 'queued',
        assigned_agent: null,
        created_by: 'anonymous',
        completed_at: null,
        outcome: null,
        notes: null,
        payload: null,
        project_id: null,
        version: 1,
        attempts: 0,
        max_attempts: 3,
        retry_delay_s: 30,
        run_after: null,
        lease_expires_at: null,
        parent_id: null,
        waiting_on: 0,
        dispatch_log: [],
      });
      expect(item.id).toMatch(UUID_RE);
      expect(item.created_at).toMatch(ISO_MS);
      expect(item.updated_at).toBe(item.created_at);
      expect(response.headers.location).toBe(`/work/${item.id}`);
      const fetched = await call(t.app, 'GET', response.headers.location as string);
      // GET adds the item's plan: nothing to depend on, no children.
      expect(fetched.body).toEqual({ ...item, ...NO_PLAN });
    });

    it('with agent, creates and dispatches in one step with one dispatch entry', async () => {
      const response = await post({
        type: 'infra_setup',
        description: 'Provision staging',
        agent: 'ops.bot@team',
        priority: 1,
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ status: 'dispatched', assigned_agent: 'ops.bot@team', priority: 1 });
      expect(response.body.dispatch_log).toEqual([
        {
          id: expect.stringMatching(UUID_RE),
          work_item_id: response.body.id,
          agent: 'ops.bot@team',
          dispatched_at: response.body.created_at,
          completed_at: null,
          outcome: null,
          reason: null,
        },
      ]);
    });

    it('keeps the payload exactly as sent, key order included', async () => {
      const payload = { zeta: 1, alpha: { nested: [1, 'two', null, true] }, ünïcode: '✓' };
      const response = await post({ type: 'code_review', description: 'Review', payload });
      expect(response.status).toBe(201);
      expect(JSON.stringify(response.body.payload)).toBe(JSON.stringify(payload));
      const fetched = await call(t.app, 'GET', `/work/${response.body.id}`);
      expect(fetched.text).toContain(JSON.stringify(payload));
    });

    it('takes created_by from X-User and validates it like an agent name', async () => {
      const response = await post({ type: 'x', description: 'y' }, { 'x-user': 'alice' });
      expect(response.body.created_by).toBe('alice');
      const bad = await post({ type: 'x', description: 'y' }, { 'x-user': 'not a name!' });
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'x-user' })]);
    });

    it('accepts a project_id of an existing project', async () => {
      const project = await call(t.app, 'POST', '/projects', { name: `Project ${Math.random()}` });
      const response = await post({ type: 'x', description: 'y', project_id: project.body.id });
      expect(response.status).toBe(201);
      expect(response.body.project_id).toBe(project.body.id);
    });

    const invalid: [string, Record<string, unknown>, string][] = [
      ['type missing', { description: 'd' }, 'type'],
      ['type empty', { type: '', description: 'd' }, 'type'],
      ['type too long', { type: 'a'.repeat(65), description: 'd' }, 'type'],
      ['type starting with a dash', { type: '-x', description: 'd' }, 'type'],
      ['type with a space', { type: 'code review', description: 'd' }, 'type'],
      ['type not a string', { type: 7, description: 'd' }, 'type'],
      ['description missing', { type: 't' }, 'description'],
      ['description empty', { type: 't', description: '' }, 'description'],
      ['description blank', { type: 't', description: '   \n\t ' }, 'description'],
      ['description too long', { type: 't', description: 'd'.repeat(10_001) }, 'description'],
      ['priority as a string', { type: 't', description: 'd', priority: '2' }, 'priority'],
      ['priority 0', { type: 't', description: 'd', priority: 0 }, 'priority'],
      ['priority 6', { type: 't', description: 'd', priority: 6 }, 'priority'],
      ['priority fractional', { type: 't', description: 'd', priority: 2.5 }, 'priority'],
      ['agent empty', { type: 't', description: 'd', agent: '' }, 'agent'],
      ['agent with a slash', { type: 't', description: 'd', agent: 'a/b' }, 'agent'],
      ['agent too long', { type: 't', description: 'd', agent: 'a'.repeat(65) }, 'agent'],
      ['project_id not a uuid', { type: 't', description: 'd', project_id: 'p1' }, 'project_id'],
      [
        'project_id unknown',
        { type: 't', description: 'd', project_id: '0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10' },
        'project_id',
      ],
      ['payload an array', { type: 't', description: 'd', payload: [1, 2] }, 'payload'],
      ['payload a string', { type: 't', description: 'd', payload: 'x' }, 'payload'],
      ['payload over 64 KiB', { type: 't', description: 'd', payload: { blob: 'x'.repeat(66_000) } }, 'payload'],
      ['an unknown field', { type: 't', description: 'd', colour: 'red' }, 'colour'],
    ];
    it.each(invalid)('%s is a 422 naming the field', async (_name, body, field) => {
      const response = await post(body);
      expect(response.status).toBe(422);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body).toMatchObject({ status: 422, title: expect.any(String), type: expect.any(String) });
      expect(response.body.detail).toEqual(expect.any(String));
      expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    });

    it('an item that failed validation is not stored', async () => {
      const before = (await call(t.app, 'GET', '/work/counts')).body;
      await post({ type: 't', description: 'd', project_id: '0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10' });
      await post({ type: 't', description: 'd', agent: 'bob', payload: { blob: 'x'.repeat(66_000) } });
      expect((await call(t.app, 'GET', '/work/counts')).body).toEqual(before);
    });
  });

  describe('HTTP errors', () => {
    it('malformed JSON is a 400 problem', async () => {
      const response = await call(t.app, 'POST', '/work', '{"type": "x", ');
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body.title).toBe('Bad Request');
    });

    it('a body that is not JSON is a 415', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/work',
          headers: { 'content-type': type },
          payload: 'type=x',
        });
        expect(response.statusCode, type).toBe(415);
        expect(response.headers['content-type']).toContain('application/problem+json');
      }
    });

    it('a body over 1 MiB is a 413', async () => {
      const response = await call(t.app, 'POST', '/work', { type: 't', description: 'x'.repeat(1024 * 1024 + 10) });
      expect(response.status).toBe(413);
      expect(response.headers['content-type']).toContain('application/problem+json');
    });

    it('unknown routes, unknown ids and ids that are not UUIDs are 404 problems', async () => {
      for (const [method, url] of [
        ['GET', '/nothing-here'],
        ['GET', '/work/not-a-uuid'],
        ['GET', '/work/7c2f5bb0-8f9e-4c3a-b1d2-9e8f7a6b5c4d'],
        ['DELETE', '/work/7c2f5bb0-8f9e-4c3a-b1d2-9e8f7a6b5c4d'],
        ['PATCH', '/work/12345'],
        ['GET', '/projects/also-not-a-uuid'],
      ] as const) {
        const response = await call(t.app, method, url, method === 'PATCH' ? { notes: 'x' } : undefined);
        expect(response.status, `${method} ${url}`).toBe(404);
        expect(response.headers['content-type']).toContain('application/problem+json');
        expect(response.body).toMatchObject({ status: 404, title: 'Not Found' });
      }
    });

    it('never answers with HTML or a stack trace', async () => {
      const response = await call(
        t.app,
        'POST',
        '/work',
        '{"__proto__": {"polluted": true}, "type": "t", "description": "d"}',
      );
      expect(response.status).toBeLessThan(500);
      expect(response.text).not.toMatch(/<html|at .*\.ts:\d+|at .*\.js:\d+/);
    });
  });

  describe('PATCH validation', () => {
    it('an empty body, unknown fields and bad values are 422 naming the field', async () => {
      const { body: item } = await post({ type: 't', description: 'd' });
      for (const [body, field] of [
        [{}, 'body'],
        [{ status: 'done' }, 'status'],
        [{ outcome: 'maybe' }, 'outcome'],
        [{ agent: 'a b' }, 'agent'],
        [{ notes: 'n'.repeat(10_001) }, 'notes'],
        [{ priority: 0 }, 'priority'],
        [{ type: 'has space' }, 'type'],
        [{ description: '   ' }, 'description'],
        [{ project_id: 'nope' }, 'project_id'],
        [{ payload: [1] }, 'payload'],
      ] as const) {
        const response = await call(t.app, 'PATCH', `/work/${item.id}`, body);
        expect(response.status, JSON.stringify(body)).toBe(422);
        expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      }
    });
  });

  describe('DELETE /work/{id}', () => {
    it('removes the item and its dispatch log, then 404', async () => {
      const { body: item } = await post({ type: 't', description: 'd', agent: 'zed' });
      const deleted = await call(t.app, 'DELETE', `/work/${item.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await call(t.app, 'GET', `/work/${item.id}`)).status).toBe(404);
      expect((await call(t.app, 'DELETE', `/work/${item.id}`)).status).toBe(404);
      const rows = await t.database.kysely
        .selectFrom('dispatch_log')
        .selectAll()
        .where('work_item_id', '=', item.id)
        .execute();
      expect(rows).toEqual([]);
    });
  });

  describe('GET /health', () => {
    it('is ok while the store answers', async () => {
      const response = await call(t.app, 'GET', '/health');
      expect(response).toMatchObject({ status: 200, body: { status: 'ok' } });
    });
  });

  describe('OpenAPI', () => {
    it('serves a document generated from the route schemas, and a viewer', async () => {
      const doc = await call(t.app, 'GET', '/openapi.json');
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toMatch(/^3\./);
      expect(Object.keys(doc.body.paths)).toEqual(
        expect.arrayContaining([
          '/work',
          '/work/{id}',
          '/work/agent/{agent}',
          '/projects',
          '/projects/{id}',
          '/health',
        ]),
      );
      const post = inlineRefs(doc.body).paths['/work'].post;
      expect(post.requestBody.content['application/json'].schema.properties.priority).toMatchObject({
        minimum: 1,
        maximum: 5,
      });
      expect(post.responses['201']).toBeDefined();
      const viewer = await t.app.inject({ method: 'GET', url: '/docs/' });
      expect(viewer.statusCode).toBe(200);
      expect(viewer.headers['content-type']).toContain('text/html');
    });
  });
});
