import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { ISO_MS, type JsonResponse, call } from '../support/http.js';

// People's profiles through HTTP on both stores: PUT creates then replaces, GET and DELETE, who
// may touch whose profile (a member its own, an admin any, nobody else), and every bad input a
// 4xx problem document.

const problem = (response: JsonResponse, status: number) => {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
};

describe.each(await storesUnderTest())('people on %s', (kind) => {
  let t: TestApp;
  const as = {} as Record<'admin' | 'mia' | 'max' | 'viewer' | 'ada', Record<string, string>>;

  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV });
    as.admin = bearer(ADMIN_SECRET);
    as.mia = bearer((await mintToken(t.app, { role: 'member', name: 'mia' })).token);
    as.max = bearer((await mintToken(t.app, { role: 'member', name: 'max' })).token);
    as.viewer = bearer((await mintToken(t.app, { role: 'viewer', name: 'vera' })).token);
    as.ada = bearer((await mintToken(t.app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token);
  });
  afterAll(() => t?.close());

  const put = (name: string, body: unknown, who: Record<string, string>) =>
    call(t.app, 'PUT', `/people/${name}`, body, who);

  it('creates a profile (201), replaces it (200, created_at kept), reads, lists and deletes it', async () => {
    const created = await put(
      'mia',
      { email: 'mia@example.org', notify: 'digest', digest_at: '08:30', tz: 'Europe/Berlin' },
      as.mia,
    );
    expect(created.status, created.text).toBe(201);
    expect(created.headers.location).toBe('/people/mia');
    expect(created.body).toEqual({
      name: 'mia',
      email: 'mia@example.org',
      notify: 'digest',
      digest_at: '08:30',
      tz: 'Europe/Berlin',
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });

    // PUT is whole: what it leaves out is cleared.
    const replaced = await put('mia', { email: 'Mia@Example.org', notify: 'immediate' }, as.mia);
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ email: 'Mia@Example.org', notify: 'immediate', digest_at: null, tz: null });
    expect(replaced.body.created_at).toBe(created.body.created_at);

    expect((await call(t.app, 'GET', '/people/mia', undefined, as.mia)).body).toEqual(replaced.body);
    expect((await call(t.app, 'GET', '/people/mia', undefined, as.admin)).body).toEqual(replaced.body);

    await put('adam', { email: 'adam@example.org', notify: 'off' }, as.admin);
    const all = await call(t.app, 'GET', '/people', undefined, as.admin);
    expect(all.status).toBe(200);
    expect(all.body.map((p: { name: string }) => p.name)).toEqual(['adam', 'mia']);
    // A member's list holds its own profile only.
    expect((await call(t.app, 'GET', '/people', undefined, as.mia)).body.map((p: { name: string }) => p.name)).toEqual([
      'mia',
    ]);
    expect((await call(t.app, 'GET', '/people', undefined, as.max)).body).toEqual([]);

    const gone = await call(t.app, 'DELETE', '/people/adam', undefined, as.admin);
    expect(gone.status).toBe(204);
    problem(await call(t.app, 'GET', '/people/adam', undefined, as.admin), 404);
    problem(await call(t.app, 'DELETE', '/people/adam', undefined, as.admin), 404);
  });

  it('a member reads and edits only its own profile; an admin any; a viewer or an agent none', async () => {
    await put('max', { email: 'max@example.org', notify: 'immediate' }, as.max);
    problem(await call(t.app, 'GET', '/people/max', undefined, as.mia), 403);
    problem(await put('max', { email: 'evil@example.org', notify: 'off' }, as.mia), 403);
    problem(await call(t.app, 'DELETE', '/people/max', undefined, as.mia), 403);
    for (const who of [as.viewer, as.ada]) {
      problem(await call(t.app, 'GET', '/people', undefined, who), 403);
      problem(await call(t.app, 'GET', '/people/max', undefined, who), 403);
      problem(await put('max', { email: 'x@example.org', notify: 'off' }, who), 403);
    }
    const byAdmin = await put('max', { email: 'max@corp.example', notify: 'digest' }, as.admin);
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect((await call(t.app, 'GET', '/people/max', undefined, as.max)).body.email).toBe('max@corp.example');
    expect((await call(t.app, 'DELETE', '/people/max', undefined, as.max)).status).toBe(204);
  });

  it('refuses bad input with a problem document', async () => {
    const good = { email: 'mia@example.org', notify: 'immediate' };
    const bad: [unknown, number][] = [
      [{ ...good, email: 'not an address' }, 422],
      [{ ...good, email: 'a@example.org, b@example.org' }, 422],
      [{ ...good, email: 'Mia <mia@example.org>' }, 422],
      [{ ...good, email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.org` }, 422],
      [{ ...good, notify: 'sometimes' }, 422],
      [{ ...good, tz: 'Mars/Olympus_Mons' }, 422],
      [{ ...good, digest_at: '24:00' }, 422],
      [{ ...good, digest_at: '8:30' }, 422],
      [{ ...good, extra: true }, 422],
      [{ notify: 'off' }, 422],
    ];
    for (const [body, status] of bad) problem(await put('mia', body, as.admin), status);
    // 254 characters is the most an address may have: it is taken.
    const longest = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.org`;
    expect(longest).toHaveLength(254);
    const taken = await put('mia', { ...good, email: longest }, as.admin);
    expect(taken.status, taken.text).toBe(200);
    const zone = await put('mia', { ...good, tz: 'Mars/Olympus_Mons' }, as.admin);
    expect(zone.body.errors).toEqual([{ field: 'tz', message: expect.stringMatching(/IANA time zone/) }]);
    // A name as agents and members are named: any other names no resource.
    problem(await call(t.app, 'PUT', '/people/no%20spaces', good, as.admin), 404);
    problem(await call(t.app, 'GET', `/people/${'n'.repeat(65)}`, undefined, as.admin), 404);
  });
});

describe.each(await storesUnderTest())('people with AUTH=off on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t?.close());

  it('the X-User name is the person', async () => {
    const made = await call(
      t.app,
      'PUT',
      '/people/zoe',
      { email: 'zoe@example.org', notify: 'immediate', tz: 'America/New_York' },
      { 'x-user': 'zoe' },
    );
    expect(made.status, made.text).toBe(201);
    const listed = await call(t.app, 'GET', '/people', undefined, { 'x-user': 'zoe' });
    expect(listed.body.map((p: { name: string }) => p.name)).toEqual(['zoe']);
  });
});
