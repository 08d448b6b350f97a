import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { ISO_MS, UUID_RE, call } from '../support/http.js';

describe.each(await storesUnderTest())('projects on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t.close());

  it('creates a project with a Location header; external_ref is null when absent', async () => {
    const response = await call(t.app, 'POST', '/projects', { name: 'Apollo' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID_RE),
      name: 'Apollo',
      external_ref: null,
      created_at: expect.stringMatching(ISO_MS),
      review_required: false,
      watchers: [],
      answer_within_s: null,
      escalate_to: [],
    });
    expect(response.headers.location).toBe(`/projects/${response.body.id}`);
    expect((await call(t.app, 'GET', `/projects/${response.body.id}`)).body).toEqual(response.body);
  });

  it('names are unique ignoring case: 409', async () => {
    await call(t.app, 'POST', '/projects', { name: 'Gemini', external_ref: 'https://git.example/gemini' });
    const clash = await call(t.app, 'POST', '/projects', { name: 'GEMINI' });
    expect(clash.status).toBe(409);
    expect(clash.headers['content-type']).toContain('application/problem+json');
    expect(clash.body.detail).toContain('GEMINI');
  });

  it('lists projects by name', async () => {
    await call(t.app, 'POST', '/projects', { name: 'zephyr' });
    await call(t.app, 'POST', '/projects', { name: 'Borealis' });
    const names = (await call(t.app, 'GET', '/projects')).body.map((p: { name: string }) => p.name);
    expect(names).toEqual(['Apollo', 'Borealis', 'Gemini', 'zephyr']);
  });

  it('PATCH renames, sets and clears external_ref', async () => {
    const { body: project } = await call(t.app, 'POST', '/projects', { name: 'Mercury', external_ref: 'JIRA-1' });
    const renamed = await call(t.app, 'PATCH', `/projects/${project.id}`, { name: 'Mercury II' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Mercury II', external_ref: 'JIRA-1', created_at: project.created_at });
    const recased = await call(t.app, 'PATCH', `/projects/${project.id}`, { name: 'MERCURY II' });
    expect(recased.status).toBe(200);
    const cleared = await call(t.app, 'PATCH', `/projects/${project.id}`, { external_ref: null });
    expect(cleared.body.external_ref).toBeNull();
    const set = await call(t.app, 'PATCH', `/projects/${project.id}`, { external_ref: 'https://tracker/42' });
    expect(set.body.external_ref).toBe('https://tracker/42');
    expect((await call(t.app, 'GET', `/projects/${project.id}`)).body).toEqual(set.body);
  });

  it('PATCH to a name another project has is 409; unknown project is 404', async () => {
    const { body: project } = await call(t.app, 'POST', '/projects', { name: 'Vostok' });
    const clash = await call(t.app, 'PATCH', `/projects/${project.id}`, { name: 'apollo' });
    expect(clash.status).toBe(409);
    expect((await call(t.app, 'GET', `/projects/${project.id}`)).body.name).toBe('Vostok');
    const missing = await call(t.app, 'PATCH', '/projects/0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10', { name: 'x' });
    expect(missing.status).toBe(404);
  });

  it.each([
    ['POST', {}, 'name'],
    ['POST', { name: '' }, 'name'],
    ['POST', { name: '   ' }, 'name'],
    ['POST', { name: 'n'.repeat(201) }, 'name'],
    ['POST', { name: 42 }, 'name'],
    ['POST', { name: 'ok', external_ref: 'r'.repeat(2001) }, 'external_ref'],
    ['POST', { name: 'ok', owner: 'me' }, 'owner'],
    ['PATCH', {}, 'body'],
    ['PATCH', { name: '' }, 'name'],
    ['PATCH', { external_ref: 5 }, 'external_ref'],
    ['PATCH', { id: 'x' }, 'id'],
  ] as const)('%s %j is a 422 naming %s', async (method, body, field) => {
    const { body: project } = await call(t.app, 'POST', '/projects', { name: `Target ${Math.random()}` });
    const url = method === 'POST' ? '/projects' : `/projects/${project.id}`;
    const response = await call(t.app, method, url, body);
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });
});

// SQLite runs one transaction at a time, so only PostgreSQL can interleave two updates.
describe.each((await storesUnderTest()).filter((kind) => kind === 'postgres'))(
  'project updates racing on %s',
  (kind) => {
    let t: TestApp;
    let other: pg.Client;
    beforeAll(async () => {
      t = await startWorkApp(kind);
      other = new pg.Client({ connectionString: t.testDatabase.config.url });
      await other.connect();
    });
    afterAll(async () => {
      await other.end();
      await t.close();
    });

    it('an update that waits for another carries the other one in its answer and its event', async () => {
      const { body: project } = await call(t.app, 'POST', '/projects', { name: 'Racing' });
      // Another instance renames the project and has not committed yet.
      await other.query('BEGIN');
      await other.query("UPDATE projects SET name = 'Racing renamed', name_key = 'racing renamed' WHERE id = $1", [
        project.id,
      ]);
      const patching = call(t.app, 'PATCH', `/projects/${project.id}`, { external_ref: 'RACE-1' });
      // Until the update waits on the other's row lock (pg_locks is read live, even in a transaction).
      await expect
        .poll(async () => (await other.query('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted')).rows[0].n, {
          timeout: 5_000,
        })
        .toBeGreaterThan(0);
      await other.query('COMMIT');
      const patched = await patching;
      expect(patched.status).toBe(200);
      const stored = (await call(t.app, 'GET', `/projects/${project.id}`)).body;
      expect(stored).toMatchObject({ name: 'Racing renamed', external_ref: 'RACE-1' });
      expect(patched.body).toEqual(stored);
      const { rows } = await other.query(
        "SELECT data FROM events WHERE type = 'project.updated' ORDER BY id DESC LIMIT 1",
      );
      expect(JSON.parse(rows[0].data)).toEqual(stored);
    });

    it('an unknown project in requests that arrive together refuses only its own (submits and edits run in batches)', async () => {
      const unknown = '0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10';
      const { body: project } = await call(t.app, 'POST', '/projects', { name: `Batch ${kind}` });
      const submits = await Promise.all(
        Array.from({ length: 9 }, (_, i) =>
          call(t.app, 'POST', '/work', {
            type: 'batch_fk',
            description: `item ${i}`,
            project_id: i === 4 ? unknown : project.id,
          }),
        ),
      );
      expect(submits.map((response) => response.status)).toEqual([201, 201, 201, 201, 422, 201, 201, 201, 201]);
      expect(submits[4]!.body.errors[0].field).toBe('project_id');
      const created = submits.filter((response) => response.status === 201).map((response) => response.body);
      const edits = await Promise.all(
        created.map((item, i) => call(t.app, 'PATCH', `/work/${item.id}`, { project_id: i === 2 ? unknown : null })),
      );
      expect(edits.map((response) => response.status)).toEqual([200, 200, 422, 200, 200, 200, 200, 200]);
      const listed = await call(t.app, 'GET', '/work?type=batch_fk&limit=100');
      expect(listed.body).toHaveLength(8);
      expect(listed.body.filter((item: { project_id: string | null }) => item.project_id === project.id)).toHaveLength(
        1,
      );
    });
  },
);
