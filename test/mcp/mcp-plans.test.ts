import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { api, connectHttp, refused, use } from './helpers.js';

// Through the official SDK's MCP client against a real agentdesk process on each
// store: a planner agent submits a plan with submit_plan (all or nothing, idempotent with a
// key), reads its steps with list_children, submits a sub-item with submit_work's parent_id and
// depends_on; a worker agent claims only what is ready. Run `npm run build:server` first.

const admin = bearer(ADMIN_SECRET);

describe.each(await storesUnderTest())('plans over MCP on %s', (kind) => {
  let database: TestDatabase;
  let desk: ServerProcess;
  let planner: Client;
  let worker: Client;

  async function mint(body: Record<string, string>): Promise<string> {
    const created = await api(desk.url, 'POST', '/tokens', admin, body);
    expect(created.status).toBe(201);
    return created.body.token;
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    desk = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    planner = await connectHttp(desk.url, bearer(await mint({ name: 'planner', role: 'agent', agent: 'planner' })));
    worker = await connectHttp(desk.url, bearer(await mint({ name: 'worker', role: 'agent', agent: 'worker' })));
  });

  afterAll(async () => {
    await Promise.all([planner, worker].map((client) => client?.close()));
    await killAllServers();
    await database?.destroy();
  });

  const PLAN = {
    parent: { type: 'epic', description: 'ship the billing export' },
    steps: [
      { key: 'schema', type: 'mcp_plan', description: 'change the schema', priority: 5 },
      { key: 'api', type: 'mcp_plan', description: 'the export endpoint', depends_on_keys: ['schema'], priority: 1 },
      { key: 'docs', type: 'mcp_plan', description: 'document it', depends_on_keys: ['api', 'schema'], priority: 1 },
    ],
  };

  it('submit_plan creates the parent and its steps; the same idempotency_key answers the same plan; list_children lists the steps', async () => {
    const plan = await use(planner, 'submit_plan', { ...PLAN, idempotency_key: `plan-${kind}` });
    expect(plan.parent).toMatchObject({ type: 'epic', status: 'queued', created_by: 'planner' });
    expect(Object.keys(plan.steps).sort()).toEqual(['api', 'docs', 'schema']);
    expect(await use(planner, 'submit_plan', { ...PLAN, idempotency_key: `plan-${kind}` })).toEqual(plan);

    const children = await use(worker, 'list_children', { id: plan.parent.id });
    expect(children.items.map((item: { id: string }) => item.id).sort()).toEqual(Object.values(plan.steps).sort());
    expect(children.next_cursor).toBeNull();
    const firstPage = await use(worker, 'list_children', { id: plan.parent.id, limit: 2 });
    expect(firstPage.items).toHaveLength(2);
    const rest = await use(worker, 'list_children', { id: plan.parent.id, limit: 2, cursor: firstPage.next_cursor });
    expect(rest.items).toHaveLength(1);
  });

  it('submit_work takes parent_id and depends_on; the worker claims a step only once what it waits on completed', async () => {
    const plan = await use(planner, 'submit_plan', {
      parent: { type: 'epic', description: 'a second plan' },
      steps: [
        { key: 'first', type: 'mcp_order', description: 'first', priority: 5 },
        { key: 'second', type: 'mcp_order', description: 'second', priority: 1, depends_on_keys: ['first'] },
      ],
    });
    const extra = await use(planner, 'submit_work', {
      type: 'mcp_order',
      description: 'third',
      priority: 1,
      parent_id: plan.parent.id,
      depends_on: [plan.steps.second],
    });
    expect(extra).toMatchObject({ parent_id: plan.parent.id, waiting_on: 1 });
    const ready = await use(worker, 'list_children', { id: plan.parent.id, ready: 'true' });
    expect(ready.items.map((item: { description: string }) => item.description)).toEqual(['first']);
    const order: string[] = [];
    for (;;) {
      const claimed = await use(worker, 'claim_next_work', { types: ['mcp_order'] });
      if (claimed.claimed === false) break;
      order.push(claimed.description);
      await use(worker, 'complete_work', { id: claimed.id });
    }
    expect(order).toEqual(['first', 'second', 'third']);
  });

  it('submit_plan refuses a cycle as a tool error that names it, and creates nothing', async () => {
    const text = await refused(planner, 'submit_plan', {
      parent: { type: 'epic', description: 'a circular plan' },
      steps: [
        { key: 'a', type: 'mcp_cycle', description: 'a', depends_on_keys: ['b'] },
        { key: 'b', type: 'mcp_cycle', description: 'b', depends_on_keys: ['a'] },
      ],
    });
    expect(text).toMatch(/refused \(422/);
    expect(text).toMatch(/cycle: a → b → a/);
    expect(text).toMatch(/Fix the arguments and call submit_plan again/);
    expect((await api(desk.url, 'GET', '/work?type=mcp_cycle', admin)).body).toEqual([]);
    const bad = await refused(planner, 'submit_plan', { parent: { type: 'epic', description: 'x' }, steps: [] });
    expect(bad).toMatch(/Invalid arguments: steps/);
  });
});
