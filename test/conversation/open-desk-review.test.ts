import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli, runCliJson } from '../support/cli.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { api, connectHttp, use } from '../mcp/helpers.js';

// The review on the default desk (AUTH=off), through the official MCP client and the built CLI
// against a real process on each store: the caller that holds an item is its holder however it
// names itself (X-User, or the body's agent), so its completion waits for a person, and it never
// approves its own work. Agents' calls are recorded under their own name, as agents; the CLI says
// when a finished item went for review. Run `npm run build:server` first.

// Each CLI command is a process of its own.
const SLOW = 120_000;

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

describe.each(await storesUnderTest())('the review on an open desk on %s', (kind) => {
  let database: TestDatabase;
  let desk: ServerProcess;
  let bot: Client;
  let project: string;
  const mia = { 'x-user': 'mia' };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // Generous: a loaded machine starts a process slowly.
    desk = await startWorkServer({ env: { DATABASE_URL: database.config.url }, startTimeoutMs: 90_000 });
    bot = await connectHttp(desk.url, { 'x-user': 'bot-1' });
    const made = await api(desk.url, 'POST', '/projects', mia, { name: 'reviewed', review_required: true });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    project = made.body.id;
  }, SLOW);

  afterAll(async () => {
    await bot?.close();
    await killAllServers();
    await database?.destroy();
  }, SLOW);

  const submit = async (type: string, extra: Record<string, unknown> = { project_id: project }) => {
    const made = await api(
      desk.url,
      'POST',
      '/work',
      { 'x-user': 'ada' },
      { type, description: `a ${type} item`, ...extra },
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.id as string;
  };
  const item = async (id: string) => (await api(desk.url, 'GET', `/work/${id}`, mia)).body;
  const history = async (id: string) =>
    ((await api(desk.url, 'GET', `/work/${id}/history`, mia)).body as any[]).map((entry) => [
      entry.action,
      entry.actor,
      entry.role,
    ]);
  const openReview = async (id: string) =>
    ((await api(desk.url, 'GET', `/work/${id}/questions`, mia)).body as any[]).find(
      (q) => q.kind === 'review' && q.status === 'open',
    );

  it('MCP complete_work sends the item for review; the agent may not approve it, a person does', async () => {
    const id = await submit('ods_mcp');
    const claimed = await use(bot, 'claim_next_work', { types: ['ods_mcp'] });
    expect(claimed).toMatchObject({ id, status: 'in_progress', assigned_agent: 'bot-1' });
    const done = await use(bot, 'complete_work', { id, notes: 'shipped' });
    expect(done).toMatchObject({ id, status: 'blocked', review: { kind: 'review', status: 'open' } });
    expect(done.next_step).toMatch(/Sent for review/);
    expect(await item(id)).toMatchObject({ status: 'blocked', completed_at: null });

    const review = await openReview(id);
    const verdict = (who: Record<string, string>) =>
      api(desk.url, 'POST', `/work/${id}/questions/${review.id}/answer`, who, { option: 'approve' });
    const own = await verdict({ 'x-user': 'bot-1' });
    expect(own.status).toBe(403);
    expect(own.body.detail).toMatch(/work by bot-1, which is you/);
    expect((await verdict(mia)).status).toBe(200);
    expect(await item(id)).toMatchObject({ status: 'completed', outcome: 'success' });

    // The agent's calls are its own, as an agent; the people's are theirs.
    expect(await history(id)).toEqual([
      ['created', 'ada', 'admin'],
      ['claimed', 'bot-1', 'agent'],
      ['send_for_review', 'bot-1', 'agent'],
      ['approve', 'mia', 'admin'],
    ]);
  });

  it(
    'agentdesk work complete, and work claim --finish, send the item for review and say so',
    async () => {
      const cli = { AGENTDESK_URL: desk.url, AGENTDESK_AGENT: 'bot-2' };
      const first = await submit('ods_cli');
      const claim = await runCliJson(['work', 'claim', '--type', 'ods_cli'], cli);
      ok(claim.run);
      expect(claim.body).toMatchObject({ id: first, status: 'in_progress', assigned_agent: 'bot-2' });
      const completed = ok(await runCli(['work', 'complete', first], cli));
      expect(completed.stderr).toContain(`Sent ${first} for review`);
      expect(await item(first)).toMatchObject({ status: 'blocked' });

      const second = await submit('ods_finish');
      ok(await runCli(['work', 'claim', '--type', 'ods_finish'], cli));
      const finished = ok(await runCli(['work', 'claim', '--type', 'ods_finish', '--finish', second], cli));
      expect(finished.stderr).toContain(`Sent ${second} for review`);
      expect(finished.stderr).toContain('Nothing to claim for bot-2');
      expect(await item(second)).toMatchObject({ status: 'blocked' });
      expect((await history(second)).at(-1)).toEqual(['send_for_review', 'bot-2', 'agent']);
    },
    SLOW,
  );

  it('a PATCH by the holder named by X-User alone, without agent, waits for review too', async () => {
    const id = await submit('ods_patch');
    const claimed = await api(desk.url, 'POST', '/work/claim', {}, { agent: 'bot-3', types: ['ods_patch'] });
    expect(claimed.body).toMatchObject({ id, assigned_agent: 'bot-3' });
    const done = await api(
      desk.url,
      'PATCH',
      `/work/${id}`,
      { 'x-user': 'bot-3' },
      { status: 'completed', outcome: 'success' },
    );
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ status: 'blocked' });
    // The holder may not switch its review off either.
    const lowered = await api(desk.url, 'PATCH', `/work/${id}`, { 'x-user': 'bot-3' }, { review_required: false });
    expect(lowered.status).toBe(403);
  });

  it("the tour's calls, which name the agent in the body only, are the agent's in the history", async () => {
    const id = await submit('ods_tour', {});
    const claimed = await api(
      desk.url,
      'POST',
      '/work/claim',
      {},
      { agent: 'agent-7', types: ['ods_tour'], lease_s: 300 },
    );
    expect(claimed.body.id).toBe(id);
    expect((await api(desk.url, 'POST', `/work/${id}/heartbeat`, {}, { agent: 'agent-7' })).status).toBe(200);
    const done = await api(
      desk.url,
      'PATCH',
      `/work/${id}`,
      {},
      { status: 'completed', outcome: 'success', agent: 'agent-7', notes: 'approved' },
    );
    expect(done.body).toMatchObject({ status: 'completed' });
    expect(await history(id)).toEqual([
      ['created', 'ada', 'admin'],
      ['claimed', 'agent-7', 'agent'],
      ['heartbeat', 'agent-7', 'agent'],
      ['complete', 'agent-7', 'agent'],
    ]);
  });
});
