import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// POST /work/plans: a parent and its steps in one transaction, the steps naming each
// other by key; the keys checked (unique, known, no cycle) with a 422 that names the fault;
// all or nothing; Idempotency-Key as with POST /work. Both stores, through HTTP.

const step = (key: string, depends_on_keys?: string[], extra: Record<string, unknown> = {}) => ({
  key,
  type: 'plan_step',
  description: `step ${key}`,
  ...(depends_on_keys && { depends_on_keys }),
  ...extra,
});

describe.each(await storesUnderTest())('plans on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t.close());

  const plan = (steps: unknown[], headers: Record<string, string> = {}, parent: Record<string, unknown> = {}) =>
    call(
      t.app,
      'POST',
      '/work/plans',
      { parent: { type: 'plan', description: 'ship the billing export', ...parent }, steps },
      headers,
    );
  const itemsBy = async (user: string) =>
    (await call(t.app, 'GET', `/work?created_by=${user}&limit=1000`)).body as any[];

  it('creates the parent and every step under it, dependencies resolved from keys, in dependency order', async () => {
    const { body: project } = await call(t.app, 'POST', '/projects', { name: `plans ${kind}` });
    const created = await plan(
      [
        step('api', ['schema']),
        step('schema'),
        step('ui', ['api', 'schema'], { priority: 1 }),
        step('docs', undefined, { project_id: null }),
      ],
      { 'x-user': 'planner' },
      { project_id: project.id },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { parent, steps } = created.body;
    expect(created.headers.location).toBe(`/work/${parent.id}`);
    expect(Object.keys(steps).sort()).toEqual(['api', 'docs', 'schema', 'ui']);
    expect(parent).toMatchObject({ type: 'plan', status: 'queued', created_by: 'planner', project_id: project.id });
    const ui = (await call(t.app, 'GET', `/work/${steps.ui}`)).body;
    expect(ui).toMatchObject({
      description: 'step ui',
      priority: 1,
      project_id: project.id,
      status: 'queued',
      created_by: 'planner',
    });
    // A step that says project_id: null means none; one that says nothing takes the parent's.
    expect((await call(t.app, 'GET', `/work/${steps.docs}`)).body.project_id).toBeNull();
    expect(ui.parent_id).toBe(parent.id);
    expect([...ui.depends_on].sort()).toEqual([steps.api, steps.schema].sort());
    expect(ui.waiting_on).toBe(2);
    expect(parent.children).toEqual({ total: 4, queued: 4, active: 0, completed: 0, failed: 0, cancelled: 0 });
    expect(await itemsBy('planner')).toHaveLength(5);

    // The claim follows the plan: the schema first (though the ui step has the higher priority).
    const claimNext = async () =>
      (await call(t.app, 'POST', '/work/claim', { agent: 'bot', types: ['plan_step'] })).body;
    const order: string[] = [];
    for (let next = await claimNext(); next; next = await claimNext()) {
      order.push(next.description);
      await call(t.app, 'PATCH', `/work/${next.id}`, { status: 'completed', outcome: 'success' });
    }
    expect(order.indexOf('step schema')).toBeLessThan(order.indexOf('step api'));
    expect(order.indexOf('step api')).toBeLessThan(order.indexOf('step ui'));
    expect(order).toHaveLength(4);
    expect((await call(t.app, 'GET', `/work/${parent.id}`)).body.children).toMatchObject({ total: 4, completed: 4 });
  });

  it('nests a plan under an existing item, with steps that also wait on existing items; GET /work/{id}/dependents lists who waits', async () => {
    const outer = (await call(t.app, 'POST', '/work', { type: 'epic', description: 'the quarter' })).body;
    const external = (await call(t.app, 'POST', '/work', { type: 'plan_ext', description: 'vendor access' })).body;
    const created = await plan(
      [step('one', undefined, { depends_on: [external.id] }), step('two', ['one'], { depends_on: [external.id] })],
      {},
      {
        parent_id: outer.id,
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.parent.parent_id).toBe(outer.id);
    const two = (await call(t.app, 'GET', `/work/${created.body.steps.two}`)).body;
    expect([...two.depends_on].sort()).toEqual([external.id, created.body.steps.one].sort());
    const dependents = await call(t.app, 'GET', `/work/${external.id}/dependents`);
    expect(dependents.status).toBe(200);
    // One plan, one timestamp: the order between its steps is not defined.
    expect(dependents.body.map((item: { id: string }) => item.id).sort()).toEqual(
      [created.body.steps.one, created.body.steps.two].sort(),
    );
    expect(dependents.body.find((item: { id: string }) => item.id === created.body.steps.two)).toMatchObject({
      status: 'queued',
      waiting_on: 2,
      parent_id: created.body.parent.id,
    });
    expect((await call(t.app, 'GET', `/work/${created.body.steps.two}/dependents`)).body).toEqual([]);
    const missing = await call(t.app, 'GET', '/work/00000000-0000-4000-8000-000000000000/dependents');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('refuses what a submit refuses, naming the item: an unknown dependency, a parent too deep', async () => {
    const unknown = await plan(
      [step('one'), step('two', ['one'], { depends_on: ['00000000-0000-4000-8000-000000000000'] })],
      { 'x-user': 'refused-planner' },
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].field).toMatch(/^steps\.1\.depends_on/);
    // Eight levels at most: a plan under the eighth level would put its steps at the ninth.
    let parentId: string | null = null;
    for (let level = 1; level <= 7; level++) {
      parentId = (
        await call(t.app, 'POST', '/work', {
          type: 'deep',
          description: `level ${level}`,
          ...(parentId !== null && { parent_id: parentId }),
        })
      ).body.id;
    }
    const tooDeep = await plan([step('leaf')], { 'x-user': 'refused-planner' }, { parent_id: parentId });
    expect(tooDeep.status, JSON.stringify(tooDeep.body)).toBe(422);
    expect(tooDeep.body.errors[0].field).toMatch(/^steps\.0\.parent_id/);
    expect(await itemsBy('refused-planner')).toHaveLength(0);
  });

  it('refuses repeated keys, unknown keys, a step naming itself and a cycle through four steps: a 422 naming the fault; nothing created', async () => {
    const cases: Array<[unknown[], string, RegExp]> = [
      [[step('a'), step('b'), step('a')], 'steps.2.key', /"a" is already the key of steps\.0/],
      [[step('a'), step('b', ['nope'])], 'steps.1.depends_on_keys', /"nope" is not the key of a step/],
      [[step('a', ['a'])], 'steps.0.depends_on_keys', /cycle: a → a/],
      [
        [step('start'), step('a', ['d']), step('b', ['a']), step('c', ['b']), step('d', ['c', 'start'])],
        'steps.1.depends_on_keys',
        /cycle: a → d → c → b → a/,
      ],
    ];
    for (const [steps, field, detail] of cases) {
      const refused = await plan(steps, { 'x-user': 'cyclist' });
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.errors).toEqual([{ field, message: expect.stringMatching(detail) }]);
      expect(refused.body.detail).toMatch(detail);
    }
    expect(await itemsBy('cyclist')).toHaveLength(0);
  });

  it('is all or nothing: a step refused by the submit rules leaves no parent and no earlier step, and names the step', async () => {
    const refused = await plan(
      [step('one'), step('two'), step('three', ['two'], { project_id: '00000000-0000-4000-8000-000000000000' })],
      {
        'x-user': 'atomic',
      },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { field: 'steps.2.project_id', message: 'is not the id of an existing project' },
    ]);
    expect(await itemsBy('atomic')).toHaveLength(0);
  });

  it('refuses what the schema forbids: no steps, an agent, a step with a parent_id, a bad key', async () => {
    const bad: unknown[] = [
      { parent: { type: 'plan', description: 'x' }, steps: [] },
      { parent: { type: 'plan', description: 'x', agent: 'bot' }, steps: [step('a')] },
      {
        parent: { type: 'plan', description: 'x' },
        steps: [step('a', undefined, { parent_id: '00000000-0000-4000-8000-000000000000' })],
      },
      { parent: { type: 'plan', description: 'x' }, steps: [step('a b')] },
      { parent: { type: 'plan', description: 'x' }, steps: [step('a', ['b', 'b']), step('b')] },
      { steps: [step('a')] },
    ];
    for (const body of bad) {
      const refused = await call(t.app, 'POST', '/work/plans', body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
    }
  });

  it('Idempotency-Key: the same key and body answer the first plan again, creating nothing; another body is a 422; one key on two routes is a reuse', async () => {
    const headers = { 'idempotency-key': `plan-${kind}`, 'x-user': 'idem-planner' };
    const steps = [step('schema'), step('api', ['schema'])];
    const first = await plan(steps, headers);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await plan(steps, headers);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await itemsBy('idem-planner')).toHaveLength(3);
    const other = await plan([step('schema')], headers);
    expect(other.status).toBe(422);
    expect(other.body.errors[0].field).toBe('Idempotency-Key');
    const submit = await call(t.app, 'POST', '/work', { type: 'x', description: 'x' }, headers);
    expect(submit.status).toBe(422);
    expect(await itemsBy('idem-planner')).toHaveLength(3);
  });
});
