import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// `finish` in a claim: the agent's last item finished and its next one claimed in one request,
// through HTTP on both stores. The finish is the PATCH it stands for (same checks, same record),
// and when it is refused nothing is claimed.

describe.each(await storesUnderTest())('POST /work/claim with finish on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t.close());

  const submit = async (type: string, body: Record<string, unknown> = {}) => {
    const response = await call(t.app, 'POST', '/work', { description: 'a task', type, ...body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const claim = (body: Record<string, unknown>) => call(t.app, 'POST', '/work/claim', body);
  const get = async (id: string) => (await call(t.app, 'GET', `/work/${id}`)).body;
  const history = async (id: string) =>
    (await call(t.app, 'GET', `/work/${id}/history`)).body as { actor: string; action: string }[];

  it('completes the last item and claims the next in one request', async () => {
    const type = 'finish_next';
    const first = await submit(type);
    const second = await submit(type);
    const held = await claim({ agent: 'fin-a', types: [type] });
    expect(held.body.id).toBe(first.id);

    const next = await claim({
      agent: 'fin-a',
      types: [type],
      finish: { id: first.id, status: 'completed', notes: 'done' },
    });
    expect(next.status, next.text).toBe(200);
    expect(next.body).toMatchObject({ id: second.id, status: 'in_progress', assigned_agent: 'fin-a' });
    expect(next.headers.etag).toBe(`"${next.body.version}"`);

    const finished = await get(first.id);
    expect(finished).toMatchObject({ status: 'completed', notes: 'done', lease_expires_at: null });
    expect(finished.dispatch_log).toEqual([expect.objectContaining({ agent: 'fin-a', reason: 'completed' })]);
    // Recorded as the PATCH it stands for, by whoever made the claim.
    const entries = await history(first.id);
    expect(entries.at(-1)).toMatchObject({ actor: entries.at(-2)!.actor, action: 'complete' });
  });

  it('finishes the item when nothing is left to claim (204), failed as well as completed', async () => {
    const type = 'finish_last';
    const only = await submit(type, { max_attempts: 1 });
    await claim({ agent: 'fin-b', types: [type] });
    const none = await claim({ agent: 'fin-b', types: [type], finish: { id: only.id, status: 'failed' } });
    expect(none.status).toBe(204);
    expect(none.text).toBe('');
    expect(await get(only.id)).toMatchObject({ status: 'failed', assigned_agent: 'fin-b' });
  });

  it('a refused finish is the answer, and nothing is claimed', async () => {
    const type = 'finish_refused';
    const mine = await submit(type);
    await claim({ agent: 'fin-c', types: [type] });
    const waiting = await submit(type);

    // Held by another agent: the PATCH's 409, and the queued item stays queued.
    const notHolder = await claim({ agent: 'fin-d', types: [type], finish: { id: mine.id, status: 'completed' } });
    expect(notHolder.status).toBe(409);
    expect(notHolder.headers['content-type']).toMatch(/^application\/problem\+json/);
    // An item that does not exist: 404.
    const unknown = await claim({
      agent: 'fin-c',
      types: [type],
      finish: { id: '00000000-0000-4000-8000-000000000000', status: 'completed' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    // At another version than the one named: 412, as an If-Match.
    const current = await get(mine.id);
    const stale = await claim({
      agent: 'fin-c',
      types: [type],
      finish: { id: mine.id, status: 'completed', version: current.version - 1 },
    });
    expect(stale.status).toBe(412);
    expect(await get(mine.id)).toMatchObject({ status: 'in_progress', version: current.version });
    expect(await get(waiting.id)).toMatchObject({ status: 'queued', assigned_agent: null });

    // At the version named, it goes through.
    const next = await claim({
      agent: 'fin-c',
      types: [type],
      finish: { id: mine.id, status: 'completed', version: current.version },
    });
    expect(next.body.id).toBe(waiting.id);
    expect((await get(mine.id)).status).toBe('completed');
  });

  it('refuses a finish that is no finish with 422 naming the field', async () => {
    const bad = [
      { finish: { id: 'not-a-uuid', status: 'completed' }, field: /finish\/id|finish\.id/ },
      { finish: { status: 'completed' }, field: /finish/ },
      {
        finish: { id: '00000000-0000-4000-8000-000000000000', status: 'queued' },
        field: /finish\/status|finish\.status/,
      },
      {
        finish: { id: '00000000-0000-4000-8000-000000000000', status: 'completed', outcome: 'success' },
        field: /finish/,
      },
      {
        finish: { id: '00000000-0000-4000-8000-000000000000', status: 'completed', version: 0 },
        field: /finish\/version|finish\.version/,
      },
    ];
    for (const { finish, field } of bad) {
      const response = await claim({ agent: 'fin-e', finish });
      expect(response.status, JSON.stringify(finish)).toBe(422);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.text).toMatch(field);
    }
  });

  it('with wait_s the item is finished at once, before the wait', async () => {
    const type = 'finish_wait';
    const mine = await submit(type);
    await claim({ agent: 'fin-f', types: [type] });
    const waiting = claim({ agent: 'fin-f', types: [type], wait_s: 30, finish: { id: mine.id, status: 'completed' } });
    await expect.poll(async () => (await get(mine.id)).status, { timeout: 20_000 }).toBe('completed');
    const arrived = await submit(type);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(arrived.id);
  });
});
