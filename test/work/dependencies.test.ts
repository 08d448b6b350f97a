import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { createJumpingClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { connectSse } from '../support/sse.js';

// Sub-items and dependencies through HTTP on both stores: the links a submit and a
// PATCH may make and the clear 422 of each one refused, what GET shows, the claim that takes
// an item only once all it depends on completed, a dependency that fails, deletes refused.

describe.each(await storesUnderTest())('dependencies on %s', (kind) => {
  let t: TestApp;
  let base: string;
  const clock = createJumpingClock();
  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { now: clock.now });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  const submit = async (body: Record<string, unknown>) => {
    const response = await call(t.app, 'POST', '/work', { type: 'deps', description: 'a step', ...body });
    expect(response.status, response.text).toBe(201);
    return response.body as { id: string; version: number; waiting_on: number; parent_id: string | null };
  };
  const refusedSubmit = async (body: Record<string, unknown>) =>
    call(t.app, 'POST', '/work', { type: 'deps', description: 'a step', ...body });
  const get = async (id: string) => (await call(t.app, 'GET', `/work/${id}`)).body;
  /** The bodies of an item's comments by the desk (a failed dependency's note is one). */
  const deskNotes = async (id: string): Promise<string[]> =>
    ((await call(t.app, 'GET', `/work/${id}/comments`)).body as { author: string; kind: string; body: string }[])
      .filter((comment) => comment.author === 'agentdesk' && comment.kind === 'note')
      .map((comment) => comment.body);
  const patch = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(t.app, 'PATCH', `/work/${id}`, body, headers);
  const claim = (type: string, agent = 'ann') => call(t.app, 'POST', '/work/claim', { agent, types: [type] });
  const complete = async (id: string, agent = 'ann') => {
    const response = await patch(id, { status: 'completed', outcome: 'success', agent });
    expect(response.status, response.text).toBe(200);
  };

  it('an item waits until every dependency completed, then the claim takes it', async () => {
    const type = `wait-${kind}`;
    const a = await submit({ type });
    const b = await submit({ type });
    const c = await submit({ type, depends_on: [a.id, b.id] });
    expect(c.waiting_on).toBe(2);
    let detail = await get(c.id);
    expect(detail.depends_on.sort()).toEqual([a.id, b.id].sort());
    expect(detail.blocked_by.map((d: { id: string }) => d.id).sort()).toEqual([a.id, b.id].sort());
    expect(detail.blocked_by[0]).toEqual({ id: expect.any(String), status: 'queued', description: 'a step' });

    const first = await claim(type);
    const second = await claim(type);
    expect([first.body.id, second.body.id].sort()).toEqual([a.id, b.id].sort());
    expect((await claim(type)).status).toBe(204);
    expect((await call(t.app, 'GET', `/work?type=${type}&ready=true`)).body).toEqual([]);

    await complete(a.id);
    expect((await claim(type)).status).toBe(204);
    detail = await get(c.id);
    expect(detail.waiting_on).toBe(1);
    expect(detail.blocked_by).toEqual([{ id: b.id, status: 'in_progress', description: 'a step' }]);

    await complete(b.id);
    detail = await get(c.id);
    expect(detail.waiting_on).toBe(0);
    expect(detail.blocked_by).toEqual([]);
    expect((await call(t.app, 'GET', `/work?type=${type}&ready=true`)).body.map((i: { id: string }) => i.id)).toEqual([
      c.id,
    ]);
    expect(
      (await call(t.app, 'GET', `/work?type=${type}&ready=false`)).body.map((i: { id: string }) => i.id).sort(),
    ).toEqual([a.id, b.id].sort());
    const third = await claim(type);
    expect(third.status).toBe(200);
    expect(third.body.id).toBe(c.id);
  });

  it("a dependent that becomes ready gets its work.updated event, in the completion's commit", async () => {
    const type = `event-${kind}`;
    const a = await submit({ type });
    const b = await submit({ type, depends_on: [a.id] });
    expect((await claim(type)).body.id).toBe(a.id);
    const stream = await connectSse(`${base}/events`);
    try {
      await complete(a.id);
      const events = await stream.waitFor((all) => all.some((e) => JSON.parse(e.data).id === b.id));
      const ready = JSON.parse(events.find((e) => JSON.parse(e.data).id === b.id)!.data);
      expect(ready).toMatchObject({
        id: b.id,
        status: 'queued',
        waiting_on: 0,
        version: b.version + 1,
        actor: { name: 'agentdesk', role: 'system' },
      });
      expect(events.find((e) => JSON.parse(e.data).id === b.id)!.event).toBe('work.updated');
      // On PostgreSQL the dependent's event is built in SQL, the completed item's in TypeScript:
      // both carry the same fields, each as the item's own view shows it.
      const own = JSON.parse(events.find((e) => JSON.parse(e.data).id === a.id)!.data);
      expect(Object.keys(ready).sort()).toEqual(Object.keys(own).sort());
      const { actor: _actor, ...summary } = ready;
      const view = await get(b.id);
      expect(summary).toEqual(Object.fromEntries(Object.keys(summary).map((key) => [key, view[key]])));
    } finally {
      stream.close();
    }
  });

  it('a dependency completed before the submit does not count', async () => {
    const type = `done-${kind}`;
    const a = await submit({ type });
    await claim(type);
    await complete(a.id);
    const b = await submit({ type, depends_on: [a.id] });
    expect(b.waiting_on).toBe(0);
    expect((await claim(type)).body.id).toBe(b.id);
  });

  it('a waiting claim is woken when the last dependency completes', async () => {
    const type = `wake-${kind}`;
    const a = await submit({ type });
    expect((await claim(type, 'worker')).body.id).toBe(a.id);
    const b = await submit({ type, depends_on: [a.id] });
    const waiting = call(t.app, 'POST', '/work/claim', { agent: 'waiter', types: [type], wait_s: 30 });
    await new Promise((resolve) => setImmediate(resolve));
    await complete(a.id, 'worker');
    const woken = await waiting;
    expect(woken.status).toBe(200);
    expect(woken.body.id).toBe(b.id);
  });

  it('a dispatch by PATCH of a waiting item is a 409 naming what it waits on; so is a submit with an agent', async () => {
    const a = await submit({ description: 'the schema change' });
    const b = await submit({ depends_on: [a.id] });
    const refused = await patch(b.id, { status: 'dispatched', agent: 'bo' });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(a.id);
    expect(refused.body.blocked_by).toEqual([{ id: a.id, status: 'queued', description: 'the schema change' }]);
    const atSubmit = await refusedSubmit({ depends_on: [a.id], agent: 'bo' });
    expect(atSubmit.status).toBe(409);
    expect(atSubmit.body.detail).toContain(a.id);
  });

  it('a failed dependency leaves its dependent unclaimable, blocked_by naming it, with a comment; removing it by PATCH frees it', async () => {
    const type = `fail-${kind}`;
    const a = await submit({ type, description: 'migrate the schema' });
    const b = await submit({ type, depends_on: [a.id] });
    expect((await claim(type)).body.id).toBe(a.id);
    expect((await patch(a.id, { status: 'failed', outcome: 'failed', agent: 'ann' })).status).toBe(200);
    const detail = await get(b.id);
    expect(detail.status).toBe('queued');
    expect(detail.blocked_by).toEqual([{ id: a.id, status: 'failed', description: 'migrate the schema' }]);
    const [note, ...more] = await deskNotes(b.id);
    expect(more).toEqual([]);
    expect(note).toContain(a.id);
    expect(note).toContain('ended failed');
    expect(detail.comment_count).toBe(1);
    expect(detail.notes ?? '').not.toContain(a.id);
    expect((await claim(type)).status).toBe(204);

    const stale = await patch(b.id, { depends_on: [] }, { 'if-match': `"${detail.version - 1}"` });
    expect(stale.status).toBe(412);
    const freed = await patch(b.id, { depends_on: [] }, { 'if-match': `"${detail.version}"` });
    expect(freed.status, freed.text).toBe(200);
    expect(freed.body.waiting_on).toBe(0);
    expect((await get(b.id)).depends_on).toEqual([]);
    expect((await claim(type)).body.id).toBe(b.id);
  });

  it('a cancelled dependency leaves its dependent waiting too; nothing is cancelled by itself', async () => {
    const a = await submit({});
    const b = await submit({ depends_on: [a.id] });
    expect((await patch(a.id, { status: 'cancelled', outcome: 'cancelled' })).status).toBe(200);
    const detail = await get(b.id);
    expect(detail.status).toBe('queued');
    expect(detail.waiting_on).toBe(1);
    expect((await deskNotes(b.id)).join('\n')).toContain('ended cancelled');
  });

  it('refuses cycles, direct and through four items, with a 422 that names the cycle', async () => {
    const a = await submit({});
    const b = await submit({ depends_on: [a.id] });
    const direct = await patch(a.id, { depends_on: [b.id] });
    expect(direct.status).toBe(422);
    expect(direct.body.detail).toMatch(/cycle/);
    expect(direct.body.detail).toContain(`${a.id} → ${b.id} → ${a.id}`);

    const w = await submit({});
    const x = await submit({ depends_on: [w.id] });
    const y = await submit({ depends_on: [x.id] });
    const z = await submit({ depends_on: [y.id] });
    const long = await patch(w.id, { depends_on: [z.id] });
    expect(long.status).toBe(422);
    expect(long.body.detail).toContain(`${w.id} → ${z.id} → ${y.id} → ${x.id} → ${w.id}`);
    expect((await get(w.id)).depends_on).toEqual([]);
  });

  it('refuses a self-dependency, unknown ids, repeats, 51 dependencies, and a ninth level of nesting, each a clear 422', async () => {
    const a = await submit({});
    const self = await patch(a.id, { depends_on: [a.id] });
    expect(self.status).toBe(422);
    expect(self.body.detail).toMatch(/itself/);
    const unknown = randomUUID();
    const missing = await refusedSubmit({ depends_on: [a.id, unknown] });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain(unknown);
    const twice = await refusedSubmit({ depends_on: [a.id, a.id] });
    expect(twice.status).toBe(422);
    expect(twice.body.detail).toMatch(/more than once/);
    const many = await refusedSubmit({ depends_on: Array.from({ length: 51 }, () => randomUUID()) });
    expect(many.status).toBe(422);
    expect(JSON.stringify(many.body)).toMatch(/depends_on/);
    const noParent = await refusedSubmit({ parent_id: unknown });
    expect(noParent.status).toBe(422);
    expect(noParent.body.detail).toContain(unknown);

    let parent = await submit({});
    for (let level = 2; level <= 8; level += 1) parent = await submit({ parent_id: parent.id });
    const ninth = await refusedSubmit({ parent_id: parent.id });
    expect(ninth.status).toBe(422);
    expect(ninth.body.detail).toMatch(/9 levels deep; at most 8/);
  });

  it('a PATCH cannot nest an item under its own descendant', async () => {
    const root = await submit({});
    const child = await submit({ parent_id: root.id });
    const loop = await patch(root.id, { parent_id: child.id });
    expect(loop.status).toBe(422);
    expect(loop.body.detail).toMatch(/own sub-items/);
  });

  it('GET shows children by status and GET /work filters by parent_id', async () => {
    const parent = await submit({ type: `tree-${kind}` });
    const kids = [];
    for (let i = 0; i < 3; i += 1) kids.push(await submit({ type: `kid-${kind}`, parent_id: parent.id }));
    expect((await claim(`kid-${kind}`)).status).toBe(200);
    await patch(kids[2]!.id, { status: 'cancelled', outcome: 'cancelled' });
    expect((await get(parent.id)).children).toEqual({
      total: 3,
      queued: 1,
      active: 1,
      completed: 0,
      failed: 0,
      cancelled: 1,
    });
    const listed = await call(t.app, 'GET', `/work?parent_id=${parent.id}`);
    expect(listed.body.map((i: { id: string }) => i.id).sort()).toEqual(kids.map((k) => k.id).sort());
    expect(listed.body[0].parent_id).toBe(parent.id);
  });

  it('GET /work/counts takes ready and parent_id and counts exactly what GET /work lists with them', async () => {
    const type = `counted-${kind}`;
    const parent = await submit({ type });
    const a = await submit({ type, parent_id: parent.id });
    await submit({ type, parent_id: parent.id, depends_on: [a.id] });
    await submit({ type, parent_id: parent.id, run_after: new Date(clock.now().getTime() + 3_600_000).toISOString() });
    await submit({ type, parent_id: parent.id, agent: 'ann' });
    const done = await submit({ type, parent_id: parent.id });
    const cancelled = await patch(done.id, { status: 'cancelled', outcome: 'cancelled' });
    expect(cancelled.status, cancelled.text).toBe(200);
    await submit({ type });
    /** The list's items under `query`, tallied per status as /work/counts answers. */
    const tally = async (query: string) => {
      const listed = await call(t.app, 'GET', `/work?${query}&limit=1000`);
      expect(listed.status, listed.text).toBe(200);
      const counts: Record<string, number> = {
        queued: 0,
        dispatched: 0,
        in_progress: 0,
        blocked: 0,
        completed: 0,
        failed: 0,
        cancelled: 0,
      };
      for (const item of listed.body as { status: string }[]) counts[item.status]! += 1;
      return counts;
    };
    const expected = {
      [`parent_id=${parent.id}`]: { queued: 3, dispatched: 1, cancelled: 1 },
      [`parent_id=${parent.id}&ready=true`]: { queued: 1, dispatched: 0, cancelled: 0 },
      [`parent_id=${parent.id}&ready=false`]: { queued: 2, dispatched: 1, cancelled: 1 },
      [`type=${type}&ready=true`]: { queued: 3 },
      [`type=${type}&ready=false`]: { queued: 2, dispatched: 1, cancelled: 1 },
    };
    for (const [query, counts] of Object.entries(expected)) {
      const counted = await call(t.app, 'GET', `/work/counts?${query}`);
      expect(counted.status, counted.text).toBe(200);
      expect(counted.body, query).toEqual(await tally(query));
      expect(counted.body, query).toMatchObject(counts);
    }
    // The dependency completes: its dependent is ready now, and counted so.
    expect((await patch(a.id, { agent: 'ann' })).status).toBe(200);
    expect((await patch(a.id, { status: 'in_progress', agent: 'ann' })).status).toBe(200);
    await complete(a.id);
    const readyNow = await call(t.app, 'GET', `/work/counts?parent_id=${parent.id}&ready=true`);
    expect(readyNow.body).toMatchObject({ queued: 1, completed: 0 });
    expect(readyNow.body).toEqual(await tally(`parent_id=${parent.id}&ready=true`));
    expect((await call(t.app, 'GET', `/work/counts?parent_id=${parent.id}&ready=false`)).body).toMatchObject({
      queued: 1,
      completed: 1,
      dispatched: 1,
    });

    for (const [query, field] of [
      ['ready=yes', 'ready'],
      ['ready=', 'ready'],
      ['parent_id=abc', 'parent_id'],
    ] as const) {
      const refused = await call(t.app, 'GET', `/work/counts?${query}`);
      expect(refused.status, query).toBe(422);
      expect(refused.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('deleting an item others depend on, or a parent with children, is a 409 naming them', async () => {
    const a = await submit({});
    const b = await submit({ depends_on: [a.id] });
    const refused = await call(t.app, 'DELETE', `/work/${a.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(b.id);
    const parent = await submit({});
    await submit({ parent_id: parent.id });
    const withChildren = await call(t.app, 'DELETE', `/work/${parent.id}`);
    expect(withChildren.status).toBe(409);
    expect(withChildren.body.detail).toMatch(/1 child/);
    expect((await call(t.app, 'DELETE', `/work/${b.id}`)).status).toBe(204);
    expect((await call(t.app, 'DELETE', `/work/${a.id}`)).status).toBe(204);
  });

  it('a plan of 20 steps with a diamond, 8 agents claiming: no step before its dependencies, each exactly once', async () => {
    const type = `plan-${kind}`;
    // A diamond at the top (0 → 1, 2 → 3), then a ladder where each step waits on the two before.
    const deps: number[][] = [[], [0], [0], [1, 2]];
    for (let i = 4; i < 20; i += 1) deps.push(i % 3 === 0 ? [i - 1, i - 2, i - 3] : [i - 1, i - 2]);
    const ids: string[] = [];
    for (const wanted of deps) ids.push((await submit({ type, depends_on: wanted.map((d) => ids[d]!) })).id);
    const completedAt = new Map<string, number>();
    const claimedBy = new Map<string, string>();
    let tick = 0;
    const agent = async (name: string) => {
      while (completedAt.size < ids.length) {
        const response = await call(t.app, 'POST', '/work/claim', { agent: name, types: [type], wait_s: 1 });
        if (response.status === 204) continue;
        const id = response.body.id as string;
        expect(claimedBy.has(id), `${id} claimed twice`).toBe(false);
        claimedBy.set(id, name);
        const index = ids.indexOf(id);
        for (const dep of deps[index]!)
          expect(completedAt.has(ids[dep]!), `step ${index} claimed before step ${dep} completed`).toBe(true);
        // Marked before the completion is sent: its dependents can only be claimed once it
        // committed, which is after this.
        tick += 1;
        completedAt.set(id, tick);
        await complete(id, name);
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => agent(`agent-${i}`)));
    expect(claimedBy.size).toBe(20);
    // And as the desk recorded it: each step dispatched no earlier than its dependencies completed.
    const items = await Promise.all(ids.map((id) => get(id)));
    items.forEach((item, index) => {
      expect(item.dispatch_log).toHaveLength(1);
      for (const dep of deps[index]!) expect(item.dispatch_log[0].dispatched_at >= items[dep].completed_at).toBe(true);
    });
  }, 120_000);
});
