import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkApp } from '../../src/services/work.js';
import { type TestApp, captureLogs, startWorkApp, testConfig } from '../support/apps.js';
import { createJumpingClock } from '../support/clock.js';
import { openTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Versions and ETags, If-Match / If-None-Match, Idempotency-Key, field edits and the list
// filters the agent loop asked for, through HTTP on both stores.

describe.each(await storesUnderTest())('preconditions and idempotency on %s', (kind) => {
  let t: TestApp;
  // A later write gets a later timestamp by moving the clock, not by sleeping.
  const clock = createJumpingClock();
  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { now: clock.now });
  });
  afterAll(() => t.close());

  const submit = async (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    call(t.app, 'POST', '/work', { type: 'pre_test', description: 'a task', ...body }, headers);

  it('every change increments the version; GET sends it as a strong ETag and honours If-None-Match', async () => {
    const created = await submit();
    expect(created.headers.etag).toBe('"1"');
    const id = created.body.id;
    const got = await call(t.app, 'GET', `/work/${id}`);
    expect(got.headers.etag).toBe('"1"');
    const unchanged = await call(t.app, 'GET', `/work/${id}`, undefined, { 'if-none-match': '"1"' });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    const noted = await call(t.app, 'PATCH', `/work/${id}`, { notes: 'first' });
    expect(noted.body.version).toBe(2);
    expect(noted.headers.etag).toBe('"2"');
    expect((await call(t.app, 'GET', `/work/${id}`, undefined, { 'if-none-match': '"1"' })).status).toBe(200);
    const sameAgain = await call(t.app, 'PATCH', `/work/${id}`, { notes: 'first' });
    expect(sameAgain.body.version).toBe(2);
  });

  it('a 304 announces no body: no Content-Length, no Content-Type (found by the fuzzer: undici refused a 304 with Content-Length 4)', async () => {
    const { body: item } = await submit();
    for (const tag of ['"1"', '*']) {
      const unchanged = await call(t.app, 'GET', `/work/${item.id}`, undefined, { 'if-none-match': tag });
      expect(unchanged.status).toBe(304);
      expect(unchanged.headers.etag).toBe('"1"');
      expect(unchanged.headers['content-length']).toBeUndefined();
      expect(unchanged.headers['content-type']).toBeUndefined();
      expect(unchanged.text).toBe('');
    }
  });

  it('If-Match: a fresh version is applied, a stale one is a 412 naming the current version and status', async () => {
    const { body: item } = await submit();
    const fresh = await call(t.app, 'PATCH', `/work/${item.id}`, { priority: 1 }, { 'if-match': '"1"' });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ priority: 1, version: 2 });
    const stale = await call(
      t.app,
      'PATCH',
      `/work/${item.id}`,
      { status: 'cancelled', outcome: 'cancelled' },
      { 'if-match': '"1"' },
    );
    expect(stale.status).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(stale.body).toMatchObject({ status: 412, current_version: 2, current_status: 'queued' });
    expect(stale.body.detail).toMatch(/changed since you loaded it/);
    const listed = await call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'x' }, { 'if-match': '"7", "2"' });
    expect(listed.status).toBe(200);
    const weak = await call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'y' }, { 'if-match': 'W/"3"' });
    expect(weak.status).toBe(412);
    expect(weak.body.detail).toMatch(/in double quotes/);
    // The item is at version 3: an unquoted 3 is refused, and the refusal says why.
    const unquoted = await call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'y' }, { 'if-match': '3' });
    expect(unquoted.status).toBe(412);
    expect(unquoted.body).toMatchObject({ current_version: 3 });
    expect(unquoted.body.detail).toMatch(/If-Match: "3"/);
    expect(unquoted.body.detail).not.toMatch(/changed since you loaded it/);
    const any = await call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'z' }, { 'if-match': '*' });
    expect(any.status).toBe(200);
    const staleDelete = await call(t.app, 'DELETE', `/work/${item.id}`, undefined, { 'if-match': '"1"' });
    expect(staleDelete.status).toBe(412);
    const freshDelete = await call(t.app, 'DELETE', `/work/${item.id}`, undefined, {
      'if-match': `"${any.body.version}"`,
    });
    expect(freshDelete.status).toBe(204);
  });

  it('two writers holding the same version: one wins, the other gets 412', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { body: item } = await submit();
      const results = await Promise.all([
        call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'mine' }, { 'if-match': '"1"' }),
        call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'theirs' }, { 'if-match': '"1"' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    }
  });

  it('Idempotency-Key: the same key and body answer the first response again, creating nothing', async () => {
    const headers = { 'idempotency-key': `key-${kind}-1`, 'x-user': 'idem-user' };
    const first = await submit({ description: 'only once' }, headers);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    await call(t.app, 'PATCH', `/work/${first.body.id}`, { notes: 'changed after' });
    const again = await submit({ description: 'only once' }, headers);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(`/work/${first.body.id}`);
    const listed = await call(t.app, 'GET', '/work?created_by=idem-user');
    expect(listed.body).toHaveLength(1);
  });

  it('Idempotency-Key: a different body is a 422; another caller’s same key is its own', async () => {
    const key = `key-${kind}-2`;
    expect((await submit({ description: 'one' }, { 'idempotency-key': key, 'x-user': 'ann' })).status).toBe(201);
    const other = await submit({ description: 'two' }, { 'idempotency-key': key, 'x-user': 'ann' });
    expect(other.status).toBe(422);
    expect(other.body.errors[0].field).toBe('Idempotency-Key');
    const elsewhere = await submit({ description: 'two' }, { 'idempotency-key': key, 'x-user': 'bo' });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers['idempotent-replayed']).toBeUndefined();
  });

  it('Idempotency-Key: concurrent requests with one key create one item; the rest replay it or get 409', async () => {
    const key = `key-${kind}-3`;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => submit({ description: 'racing' }, { 'idempotency-key': key, 'x-user': 'racer' })),
    );
    const created = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(created).toHaveLength(1);
    for (const result of results) {
      expect([201, 409]).toContain(result.status);
      if (result.status === 201) expect(result.body.id).toBe(created[0]!.body.id);
    }
    expect((await call(t.app, 'GET', '/work?created_by=racer')).body).toHaveLength(1);
  });

  it('a bad Idempotency-Key is a 422', async () => {
    for (const key of ['x'.repeat(256), 'tab\there']) {
      const response = await submit({}, { 'idempotency-key': key });
      expect(response.status, key).toBe(422);
    }
  });

  it('PATCH edits priority, description, type, project and payload; not once the item is final', async () => {
    const { body: project } = await call(t.app, 'POST', '/projects', { name: `edits ${kind}` });
    const { body: item } = await submit();
    const edited = await call(t.app, 'PATCH', `/work/${item.id}`, {
      priority: 2,
      description: 'a better description',
      type: 'fixed_type',
      project_id: project.id,
      payload: { b: 1, a: [2] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      priority: 2,
      description: 'a better description',
      type: 'fixed_type',
      project_id: project.id,
      payload: { b: 1, a: [2] },
      version: 2,
    });
    const unknownProject = await call(t.app, 'PATCH', `/work/${item.id}`, {
      project_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknownProject.status).toBe(422);
    expect(unknownProject.body.errors[0].field).toBe('project_id');
    await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'cancelled', outcome: 'cancelled' });
    const late = await call(t.app, 'PATCH', `/work/${item.id}`, { priority: 1 });
    expect(late.status).toBe(409);
    expect(late.body.current_status).toBe('cancelled');
    const notes = await call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'closing words' });
    expect(notes.status).toBe(200);
  });

  it('lists several statuses at once, by creator and by last change; a bad status lists the allowed ones', async () => {
    const { body: queued } = await submit({ type: 'filter_multi' }, { 'x-user': 'filterer' });
    const { body: dispatched } = await submit({ type: 'filter_multi', agent: 'ann' }, { 'x-user': 'filterer' });
    const { body: cancelled } = await submit({ type: 'filter_multi' }, { 'x-user': 'someone' });
    await call(t.app, 'PATCH', `/work/${cancelled.id}`, { status: 'cancelled', outcome: 'cancelled' });
    const both = await call(t.app, 'GET', '/work?type=filter_multi&status=queued,dispatched');
    expect(both.body.map((item: { id: string }) => item.id).sort()).toEqual([queued.id, dispatched.id].sort());
    const mine = await call(t.app, 'GET', '/work?type=filter_multi&created_by=filterer');
    expect(mine.body).toHaveLength(2);
    const since = dispatched.updated_at;
    clock.advance(5);
    await call(t.app, 'PATCH', `/work/${queued.id}`, { notes: 'touched' });
    const changed = await call(t.app, 'GET', `/work?type=filter_multi&updated_since=${encodeURIComponent(since)}`);
    expect(changed.body.map((item: { id: string }) => item.id)).toContain(queued.id);
    expect(changed.body.map((item: { id: string }) => item.id)).not.toContain(dispatched.id);
    const bad = await call(t.app, 'GET', '/work?status=queued,done');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('status');
    expect(bad.body.errors[0].message).toContain(
      'queued, dispatched, in_progress, blocked, completed, failed, cancelled',
    );
  });

  it('a change starts from the copy of the item this instance wrote last only while it is current', async () => {
    // A second instance on the same database changes the items behind the first one's back.
    const database = await openTestDatabase(t.testDatabase);
    const other = await buildWorkApp({
      config: testConfig(t.testDatabase),
      database,
      logger: captureLogs('warn').logger,
    });
    try {
      const claimOne = async () => {
        const { body: item } = await submit({ type: 'copy_test' });
        const claimed = await call(t.app, 'POST', '/work/claim', { agent: 'ann', types: ['copy_test'] });
        expect(claimed.body.id).toBe(item.id);
        return claimed.body;
      };
      const edited = await claimOne();
      expect(
        (await call(other, 'PATCH', `/work/${edited.id}`, { notes: 'from the other instance' })).body.version,
      ).toBe(3);
      const done = await call(
        t.app,
        'PATCH',
        `/work/${edited.id}`,
        { status: 'completed', outcome: 'success', agent: 'ann' },
        { 'if-match': '"3"' },
      );
      expect(done.status, done.text).toBe(200);
      expect(done.body).toMatchObject({ status: 'completed', notes: 'from the other instance', version: 4 });

      const reassigned = await claimOne();
      expect((await call(other, 'PATCH', `/work/${reassigned.id}`, { agent: 'bo' })).status).toBe(200);
      const refused = await call(t.app, 'PATCH', `/work/${reassigned.id}`, {
        status: 'completed',
        outcome: 'success',
        agent: 'ann',
      });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toContain('dispatched to bo');

      const deleted = await claimOne();
      expect((await call(other, 'DELETE', `/work/${deleted.id}`)).status).toBe(204);
      expect((await call(t.app, 'PATCH', `/work/${deleted.id}`, { notes: 'too late' })).status).toBe(404);
    } finally {
      await other.close();
      await database.close();
    }
  });
});
