import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// A plan's parent is a container: never claimable, completed by the desk when its last step
// completes (by the sweep when that was cut short), left queued with a note when a step fails.
// Its steps list in the plan's order. Depending on an item does not change it (its version, its
// holder's If-Match). A plan's dependencies are bounded. Both stores, through HTTP.

const step = (key: string, depends_on_keys?: string[]) => ({
  key,
  type: 'container_step',
  description: `step ${key}`,
  ...(depends_on_keys && { depends_on_keys }),
});

describe.each(await storesUnderTest())('plan parents and links on %s', (kind) => {
  let t: TestApp;
  let sweep: () => Promise<number> = async () => 0;
  beforeAll(async () => {
    // The sweep runs only when a test calls it.
    t = await startWorkApp(kind, {}, { sweepEveryMs: 3_600_000, onLeaseSweeper: (run) => (sweep = run) });
  });
  afterAll(() => t.close());

  const plan = async (steps: unknown[], type = `plan-${kind}`) => {
    const created = await call(t.app, 'POST', '/work/plans', { parent: { type, description: 'ship it' }, steps });
    expect(created.status, created.text).toBe(201);
    return created.body as { parent: { id: string }; steps: Record<string, string> };
  };
  const get = async (id: string) => (await call(t.app, 'GET', `/work/${id}`)).body;
  const move = async (id: string, status: string, extra: Record<string, unknown> = {}) => {
    const response = await call(t.app, 'PATCH', `/work/${id}`, { status, agent: 'ann', ...extra });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const finish = async (id: string, outcome: 'success' | 'failed' = 'success') => {
    await move(id, 'dispatched');
    await move(id, 'in_progress');
    await move(id, outcome === 'success' ? 'completed' : 'failed', { outcome });
  };

  it('the parent is never claimable, and the desk completes it when its last step completes', async () => {
    const type = `container-${kind}`;
    const { parent, steps } = await plan([step('a'), step('b', ['a'])], type);
    expect((await call(t.app, 'POST', '/work/claim', { agent: 'ann', types: [type] })).status).toBe(204);
    expect((await call(t.app, 'PATCH', `/work/${parent.id}`, { status: 'dispatched', agent: 'ann' })).status).toBe(409);
    await finish(steps.a!);
    expect(await get(parent.id)).toMatchObject({ status: 'queued' });
    expect((await call(t.app, 'POST', '/work/claim', { agent: 'ann', types: [type] })).status).toBe(204);
    await finish(steps.b!);
    expect(await get(parent.id)).toMatchObject({ status: 'completed', outcome: 'success', waiting_on: 0 });
    expect((await call(t.app, 'POST', '/work/claim', { agent: 'ann', types: [type] })).status).toBe(204);
  });

  it('a failed step leaves the parent queued, with a note naming the step', async () => {
    const { parent, steps } = await plan([step('a'), step('b')]);
    await finish(steps.a!, 'failed');
    await finish(steps.b!);
    const shown = await get(parent.id);
    expect(shown.status).toBe('queued');
    expect(shown.notes).toContain(steps.a);
    expect(shown.notes).toContain('failed');
  });

  it('the sweep completes a parent whose last step completed without settling it (a crash between)', async () => {
    const { parent, steps } = await plan([step('only')]);
    await finish(steps.only!);
    expect((await get(parent.id)).status).toBe('completed');
    // As a crash after the step's commit would leave it.
    await t.database.kysely
      .updateTable('work_items')
      .set({ status: 'queued', outcome: null, completed_at: null, waiting_on: 1 })
      .where('id', '=', parent.id)
      .execute();
    expect((await get(parent.id)).status).toBe('queued');
    await sweep();
    expect(await get(parent.id)).toMatchObject({ status: 'completed', outcome: 'success' });
  });

  it('steps made together list in the order of the plan', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `s${i}`);
    const { parent, steps } = await plan(keys.map((key, i) => step(key, i % 7 === 6 ? [keys[i - 1]!] : undefined)));
    const listed = (await call(t.app, 'GET', `/work?parent_id=${parent.id}&sort=priority&limit=100`)).body as {
      id: string;
    }[];
    expect(listed.map((item) => item.id)).toEqual(keys.map((key) => steps[key]));
    const newest = (await call(t.app, 'GET', `/work?parent_id=${parent.id}&limit=100`)).body as { id: string }[];
    expect(newest.map((item) => item.id)).toEqual(keys.map((key) => steps[key]).reverse());
  });

  it('depending on an item changes nothing of it: its holder’s If-Match still holds, and its completion counts the dependent', async () => {
    const held = (await call(t.app, 'POST', '/work', { type: `held-${kind}`, description: 'held', agent: 'ann' })).body;
    const before = await get(held.id);
    const dependent = (
      await call(t.app, 'POST', '/work', { type: 'other', description: 'leans on it', depends_on: [held.id] })
    ).body;
    const other = (await call(t.app, 'POST', '/work', { type: 'other', description: 'also' })).body;
    expect((await call(t.app, 'PATCH', `/work/${other.id}`, { depends_on: [held.id] })).status).toBe(200);
    await plan([{ ...step('x'), depends_on: [held.id] }]);
    const after = await get(held.id);
    expect(after.version).toBe(before.version);
    expect(after.updated_at).toBe(before.updated_at);
    const started = await call(
      t.app,
      'PATCH',
      `/work/${held.id}`,
      { status: 'in_progress', agent: 'ann' },
      { 'if-match': `"${before.version}"` },
    );
    expect(started.status, started.text).toBe(200);
    await move(held.id, 'completed', { outcome: 'success' });
    expect((await get(dependent.id)).waiting_on).toBe(0);
    expect((await get(other.id)).waiting_on).toBe(0);
  });

  it('a plan of more than 2,000 dependencies in all is a 422; the steps are not touched by each other', async () => {
    const keys = Array.from({ length: 70 }, (_, i) => `k${i}`);
    const steps = keys.map((key, i) => step(key, keys.slice(Math.max(0, i - 50), i)));
    const refused = await call(t.app, 'POST', '/work/plans', {
      parent: { type: 'big', description: 'too big' },
      steps,
    });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.text).toContain('2000');
    const { steps: made } = await plan(steps.slice(0, 40));
    // A step others of the plan depend on is written once, at version 1.
    expect((await get(made.k0!)).version).toBe(1);
  });
});
