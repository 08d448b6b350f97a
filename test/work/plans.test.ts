import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../helpers/apps.js';
import { storesUnderTest } from '../helpers/databases.js';
import { call } from '../helpers/http.js';

// POST /work/plans (issue 22): a parent and its steps in one transaction, the steps naming each
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
    call(t.app, 'POST', '/work/plans', { parent: { type: 'plan', description: 'ship the billing export', ...parent }, steps }, headers);
  const itemsBy = async (user: string) => (await call(t.app, 'GET', `/work?created_by=${user}&limit=1000`)).body as any[];

  it('creates the parent and every step under it, dependencies resolved from keys, in dependency order', async () => {
    const { body: project } = await call(t.app, 'POST', '/projects', { name: `plans ${kind}` });
    const created = await plan(
      [step('api', ['schema']), step('schema'), step('ui', ['api', 'schema'], { priority: 1 }), step('docs', undefined, { project_id: null })],
      { 'x-user': 'planner' },
      { project_id: project.id },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { parent, steps } = created.body;
    expect(created.headers.location).toBe(`/work/${parent.id}`);
    expect(Object.keys(steps).sort()).toEqual(['api', 'docs', 'schema', 'ui']);
    expect(parent).toMatchObject({ type: 'plan', status: 'queued', created_by: 'planner', project_id: project.id });
    const ui = (await call(t.app, 'GET', `/work/${steps.ui}`)).body;
    expect(ui).toMatchObject({ description: 'step ui', priority: 1, project_id: project.id, status: 'queued', created_by: 'planner' });
    // A step that says project_id: null means none; one that says nothing takes the parent's.
    expect((await call(t.app, 'GET', `/work/${steps.docs}`)).body.project_id).toBeNull();
    if ('depends_on' in ui) {
      expect(ui.parent_id).toBe(parent.id);
      expect([...ui.depends_on].sort()).toEqual([steps.api, steps.schema].sort());
      expect(parent.children).toMatchObject({ total: 4, queued: 4 });
    }
    expect(await itemsBy('planner')).toHaveLength(5);
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
    const refused = await plan([step('one'), step('two'), step('three', ['two'], { project_id: '00000000-0000-4000-8000-000000000000' })], {
      'x-user': 'atomic',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ field: 'steps.2.project_id', message: 'is not the id of an existing project' }]);
    expect(await itemsBy('atomic')).toHaveLength(0);
  });

  it('refuses what the schema forbids: no steps, an agent, a step with a parent_id, a bad key', async () => {
    const bad: unknown[] = [
      { parent: { type: 'plan', description: 'x' }, steps: [] },
      { parent: { type: 'plan', description: 'x', agent: 'bot' }, steps: [step('a')] },
      { parent: { type: 'plan', description: 'x' }, steps: [step('a', undefined, { parent_id: '00000000-0000-4000-8000-000000000000' })] },
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
