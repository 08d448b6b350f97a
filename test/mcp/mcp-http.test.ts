import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { api, connectHttp, refused, use } from './helpers.js';

// The official SDK's MCP client against a real agentdesk process (AUTH=tokens) on each store,
// as Claude Code or Cursor would connect to it: the tools it lists, the agent loop, refusals as
// tool errors, and one agent's token kept off another agent's item. Run `npm run build:server` first.

const admin = bearer(ADMIN_SECRET);

const TOOL_NAMES = [
  'claim_next_work',
  'heartbeat',
  'get_work_item',
  'list_work',
  'list_children',
  'start_work',
  'block_work',
  'complete_work',
  'fail_work',
  'submit_work',
  'submit_plan',
  'search_work',
  'list_projects',
  'add_note',
  'add_comment',
  'list_comments',
  'ask_person',
  'get_answer',
  'list_schedules',
];
const READ_ONLY = [
  'get_work_item',
  'list_work',
  'list_children',
  'search_work',
  'list_projects',
  'list_comments',
  'get_answer',
  'list_schedules',
];
const FINAL = ['complete_work', 'fail_work'];

describe.each(await storesUnderTest())('MCP over Streamable HTTP on %s', (kind) => {
  let database: TestDatabase;
  let desk: ServerProcess;
  let bot1: Client;
  let bot2: Client;
  let viewer: Client;

  async function mint(body: Record<string, string>): Promise<string> {
    const created = await api(desk.url, 'POST', '/tokens', admin, body);
    expect(created.status).toBe(201);
    return created.body.token;
  }

  async function submit(type: string, extra: Record<string, unknown> = {}): Promise<any> {
    const created = await api(desk.url, 'POST', '/work', admin, { type, description: `a ${type} item`, ...extra });
    expect(created.status).toBe(201);
    return created.body;
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    desk = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    bot1 = await connectHttp(desk.url, bearer(await mint({ name: 'bot-1', role: 'agent', agent: 'bot-1' })));
    bot2 = await connectHttp(desk.url, bearer(await mint({ name: 'bot-2', role: 'agent', agent: 'bot-2' })));
    viewer = await connectHttp(desk.url, bearer(await mint({ name: 'watcher', role: 'viewer' })));
  });

  afterAll(async () => {
    await Promise.all([bot1, bot2, viewer].map((client) => client?.close()));
    await killAllServers();
    await database?.destroy();
  });

  it('lists every tool with input and output schemas, a one-line description and all four annotations', async () => {
    const { tools } = await bot1.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description).toMatch(/^[^\n]{20,300}$/);
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = tool.annotations ?? {};
      expect(readOnlyHint).toBe(READ_ONLY.includes(tool.name));
      expect(destructiveHint).toBe(FINAL.includes(tool.name));
      expect(typeof idempotentHint).toBe('boolean');
      expect(openWorldHint).toBe(false);
      // The agent a tool acts as comes from the token: no tool takes one (list_work's is a filter).
      if (tool.name !== 'list_work') expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain('agent');
    }
    // A viewer is shown what a viewer may do.
    expect((await viewer.listTools()).tools.map((tool) => tool.name)).toEqual(READ_ONLY);
  });

  it('runs the loop: claim → heartbeat → complete, the result merged into payload.result', async () => {
    const submitted = await submit('mcp_loop', { payload: { input: 1, result: { earlier: true } } });
    const claimed = await use(bot1, 'claim_next_work', { types: ['mcp_loop'], lease_s: 60 });
    // The item's own fields at the top.
    expect(claimed).toMatchObject({ id: submitted.id, status: 'in_progress', assigned_agent: 'bot-1' });
    expect(Date.parse(claimed.lease_expires_at) - Date.now()).toBeLessThanOrEqual(60_000);

    const beat = await use(bot1, 'heartbeat', { id: claimed.id, lease_s: 600 });
    expect(Date.parse(beat.lease_expires_at) - Date.now()).toBeGreaterThan(500_000);

    const done = await use(bot1, 'complete_work', { id: claimed.id, notes: 'answered', result: { answer: 42 } });
    expect(done).toMatchObject({ status: 'completed', outcome: 'success', notes: 'answered' });
    expect(done.payload).toEqual({ input: 1, result: { earlier: true, answer: 42 } });

    // What the API says afterwards is what the tool answered.
    const stored = await api(desk.url, 'GET', `/work/${claimed.id}`, admin);
    // GET answers the item with its links (depends_on, blocked_by, children) besides what the move answered.
    expect(stored.body).toMatchObject(done);

    const read = await use(bot1, 'get_work_item', { id: claimed.id });
    expect(read).toMatchObject({ id: claimed.id, status: 'completed' });
    expect(read.history_source).toBe('history');
    expect(read.history.map((entry: { action: string }) => entry.action)).toEqual(
      expect.arrayContaining(['created', 'complete']),
    );
  });

  it('a refused move comes back as a tool error that says what to do next', async () => {
    const item = await submit('mcp_refused');
    const claimed = await use(bot1, 'claim_next_work', { types: ['mcp_refused'] });
    await use(bot1, 'fail_work', { id: claimed.id, reason: 'cannot be done' });

    const illegal = await refused(bot1, 'start_work', { id: item.id });
    expect(illegal).toMatch(/^agentdesk refused \(409 Conflict\): Cannot move a work item from failed to in_progress/);
    expect(illegal).toContain('Call get_work_item');

    const other = await submit('mcp_stale');
    const mine = await use(bot1, 'claim_next_work', { types: ['mcp_stale'] });
    expect(mine.id).toBe(other.id);
    await use(bot1, 'heartbeat', { id: mine.id });
    const stale = await refused(bot1, 'complete_work', { id: mine.id, version: mine.version });
    expect(stale).toMatch(/^agentdesk refused \(412 Precondition Failed\)/);
    expect(stale).toContain('Call get_work_item for the current version');
    expect((await api(desk.url, 'GET', `/work/${mine.id}`, admin)).body.status).toBe('in_progress');

    const invalid = await refused(bot1, 'claim_next_work', { agent: 'bot-2' });
    expect(invalid).toBe(
      'Invalid arguments: agent is not an argument of this tool. Fix them and call claim_next_work again.',
    );
  });

  it("a second agent's token cannot touch the first agent's item", async () => {
    await submit('mcp_owned');
    const claimed = await use(bot1, 'claim_next_work', { types: ['mcp_owned'] });
    const before = (await api(desk.url, 'GET', `/work/${claimed.id}`, admin)).body;

    for (const [tool, args] of [
      ['heartbeat', {}],
      ['complete_work', { notes: 'mine now' }],
      ['fail_work', { reason: 'taking over' }],
      ['block_work', { reason: 'stop' }],
      ['add_note', { text: 'hello' }],
      ['start_work', {}],
    ] as const) {
      const text = await refused(bot2, tool, { id: claimed.id, ...args });
      expect(text, tool).toMatch(/^agentdesk refused \(403 Forbidden\): This token acts as agent bot-2/);
      expect(text, tool).toContain('do not retry');
    }
    // Nor can it claim the item away: the claim finds nothing for bot-2.
    expect(await use(bot2, 'claim_next_work', { types: ['mcp_owned'] })).toMatchObject({ claimed: false });
    // A viewer may read it but not move it.
    expect((await use(viewer, 'get_work_item', { id: claimed.id })).id).toBe(claimed.id);
    expect(await refused(viewer, 'complete_work', { id: claimed.id })).toMatch(/^agentdesk refused \(403 Forbidden\)/);

    expect((await api(desk.url, 'GET', `/work/${claimed.id}`, admin)).body).toEqual(before);
  });

  it('blocks with a reason, resumes, notes, and says so when there is nothing to claim', async () => {
    await submit('mcp_block');
    const claimed = await use(bot1, 'claim_next_work', { types: ['mcp_block'] });
    const blocked = await use(bot1, 'block_work', { id: claimed.id, reason: 'need the API key' });
    expect(blocked).toMatchObject({ status: 'blocked', notes: 'need the API key', lease_expires_at: null });
    // A retry after a lost answer does not write the reason twice.
    expect((await use(bot1, 'block_work', { id: claimed.id, reason: 'need the API key' })).notes).toBe(
      'need the API key',
    );
    const resumed = await use(bot1, 'start_work', { id: claimed.id, version: blocked.version });
    expect(resumed.status).toBe('in_progress');
    // Progress is a comment on the timeline now; the notes stay what they were.
    const noted = await use(bot1, 'add_note', { id: claimed.id, text: 'got it' });
    expect(noted).toMatchObject({ kind: 'progress', body: 'got it', author: 'bot-1' });
    expect((await api(desk.url, 'GET', `/work/${claimed.id}`, admin)).body.notes).toBe('need the API key');

    const none = await use(bot1, 'claim_next_work', { types: ['mcp_nothing'], wait_s: 1 });
    expect(none).toEqual({ claimed: false, detail: expect.stringContaining('wait_s') });
  });

  it('lists work page by page, lists projects, submits once per idempotency key', async () => {
    const project = await api(desk.url, 'POST', '/projects', admin, { name: `mcp-${kind}` });
    for (let i = 0; i < 3; i += 1) await submit('mcp_page', { project_id: project.body.id });
    const first = await use(bot1, 'list_work', { type: 'mcp_page', limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await use(bot1, 'list_work', { type: 'mcp_page', limit: 2, cursor: first.next_cursor });
    expect(second).toMatchObject({ items: [expect.objectContaining({ type: 'mcp_page' })], next_cursor: null });

    const { projects } = await use(bot1, 'list_projects');
    expect(projects).toContainEqual(project.body);

    const args = {
      type: 'mcp_submitted',
      description: 'follow-up',
      priority: 2,
      project_id: project.body.id,
      idempotency_key: 'mcp-k1',
    };
    const made = await use(bot1, 'submit_work', args);
    expect(made).toMatchObject({ status: 'queued', created_by: 'bot-1', priority: 2 });
    expect((await use(bot1, 'submit_work', args)).id).toBe(made.id);
  });

  it('reads work items as agentdesk://work/{id} resources', async () => {
    const { resourceTemplates } = await bot1.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'agentdesk://work/{id}', mimeType: 'application/json' }),
    ]);

    await submit('mcp_resource');
    const claimed = await use(bot1, 'claim_next_work', { types: ['mcp_resource'] });
    const uri = `agentdesk://work/${claimed.id}`;
    const read = await bot1.readResource({ uri });
    expect(read.contents).toHaveLength(1);
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({
      ...(await api(desk.url, 'GET', `/work/${claimed.id}`, admin)).body,
      latest_comments: [],
    });
    // Listed: the caller's open items.
    expect((await bot1.listResources()).resources.map((resource) => resource.uri)).toContain(uri);
    expect((await bot2.listResources()).resources.map((resource) => resource.uri)).not.toContain(uri);

    await expect(
      bot1.readResource({ uri: 'agentdesk://work/00000000-0000-4000-8000-000000000000' }),
    ).rejects.toMatchObject({
      code: -32002,
    });
  });
});
