import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { type SseClient, connectSse } from '../support/sse.js';
import { api, connectHttp, refused, use } from './helpers.js';

// Through MCP: the official SDK's client, as an agent's host would hold it, against a
// real agentdesk process (AUTH=tokens) on each store. An agent comments and reports progress on
// the timeline, asks a person and waits (the answer ends the wait), reads the answer later with
// get_answer, and completes an item that needs review: complete_work says it was sent for
// review, and a person's verdict reaches the agent. Run `npm run build:server` first.

const admin = bearer(ADMIN_SECRET);

describe.each(await storesUnderTest())('MCP conversation tools on %s', (kind) => {
  let database: TestDatabase;
  let desk: ServerProcess;
  let bot: Client;
  let viewer: Client;
  let member: Record<string, string>;
  let events: SseClient;

  async function mint(body: Record<string, string>): Promise<string> {
    const created = await api(desk.url, 'POST', '/tokens', admin, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.token;
  }

  /** An item of its own type, claimed by bot-1 through MCP. */
  async function claimed(type: string, extra: Record<string, unknown> = {}): Promise<any> {
    const created = await api(desk.url, 'POST', '/work', admin, { type, description: `a ${type} item`, ...extra });
    expect(created.status).toBe(201);
    const item = await use(bot, 'claim_next_work', { types: [type], lease_s: 120 });
    expect(item.id).toBe(created.body.id);
    return item;
  }

  const item = async (id: string) => (await api(desk.url, 'GET', `/work/${id}`, admin)).body;
  const comments = async (id: string) => (await api(desk.url, 'GET', `/work/${id}/comments`, admin)).body as any[];

  /** Resolves once the service has announced a question on `id` (the agent's wait has begun before it). */
  const asked = (id: string) =>
    events.waitFor((seen) => seen.some((event) => event.event === 'question.asked' && event.data.includes(id)), 15_000);

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    desk = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    bot = await connectHttp(desk.url, bearer(await mint({ name: 'bot-1', role: 'agent', agent: 'bot-1' })));
    viewer = await connectHttp(desk.url, bearer(await mint({ name: 'watcher', role: 'viewer' })));
    member = bearer(await mint({ name: 'ada', role: 'member', agent: 'ada' }));
    events = await connectSse(`${desk.url}/events`, admin);
  });

  afterAll(async () => {
    events?.close();
    await Promise.all([bot, viewer].map((client) => client?.close()));
    await killAllServers();
    await database?.destroy();
  });

  it('lists the conversation tools, with the descriptions that tell an agent when to ask', async () => {
    const { tools } = await bot.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['add_note', 'add_comment', 'ask_person', 'get_answer']));
    const ask = tools.find((tool) => tool.name === 'ask_person')!;
    expect(ask.description).toMatch(/cannot go on/);
    expect(ask.inputSchema.properties).toMatchObject({
      wait_s: { maximum: 25 },
      options: { minItems: 2, maxItems: 10 },
    });
    expect(ask.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(tools.find((tool) => tool.name === 'get_answer')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((tool) => tool.name === 'complete_work')!.description).toMatch(/sent for review/);
    // A viewer reads answers but neither comments nor asks.
    const viewerTools = (await viewer.listTools()).tools.map((tool) => tool.name);
    expect(viewerTools).toContain('get_answer');
    expect(viewerTools).not.toContain('add_comment');
    expect(viewerTools).not.toContain('ask_person');
  });

  it('add_comment posts a comment with links; add_note posts progress and leaves notes alone', async () => {
    const mine = await claimed('mcp_talk');
    const comment = await use(bot, 'add_comment', {
      id: mine.id,
      body: 'Opened a pull request for this.',
      links: [{ url: 'https://example.com/pr/7', title: 'PR 7' }],
    });
    expect(comment).toMatchObject({
      work_item_id: mine.id,
      author: 'bot-1',
      role: 'agent',
      kind: 'note',
      links: [{ url: 'https://example.com/pr/7', title: 'PR 7' }],
    });
    const progress = await use(bot, 'add_note', { id: mine.id, text: 'Read the logs; the timeout is in the client.' });
    expect(progress).toMatchObject({
      kind: 'progress',
      author: 'bot-1',
      body: 'Read the logs; the timeout is in the client.',
    });

    expect((await comments(mine.id)).map((entry) => [entry.kind, entry.body])).toEqual([
      ['note', 'Opened a pull request for this.'],
      ['progress', 'Read the logs; the timeout is in the client.'],
    ]);
    const after = await item(mine.id);
    expect(after).toMatchObject({ notes: null, status: 'in_progress', comment_count: 2 });

    // The service's rules reach the model as tool errors: a javascript: link is refused.
    const bad = await refused(bot, 'add_comment', {
      id: mine.id,
      body: 'see',
      links: [{ url: 'javascript:alert(1)' }],
    });
    expect(bad).toMatch(/^(Invalid arguments|agentdesk refused \(4\d\d)/);
  });

  it("a person's comment reaches the agent: get_work_item, the item resource and list_comments carry it", async () => {
    const mine = await claimed('mcp_read_comments');
    for (let n = 1; n <= 12; n += 1) {
      const said = await api(desk.url, 'POST', `/work/${mine.id}/comments`, member, { body: `person's comment ${n}` });
      expect(said.status).toBe(201);
    }
    const latest = Array.from({ length: 10 }, (_, n) => `person's comment ${12 - n}`);
    const read = await use(bot, 'get_work_item', { id: mine.id });
    expect(read.latest_comments.map((entry: any) => entry.body)).toEqual(latest);
    expect(read.latest_comments[0]).toMatchObject({ author: 'ada', role: 'member', work_item_id: mine.id });
    expect(read.comment_count).toBe(12);
    const resource = await bot.readResource({ uri: `agentdesk://work/${mine.id}` });
    expect(
      JSON.parse((resource.contents[0] as { text: string }).text).latest_comments.map((entry: any) => entry.body),
    ).toEqual(latest);

    // Every comment, oldest first, a page at a time; or the latest first.
    const first = await use(bot, 'list_comments', { id: mine.id, limit: 5 });
    expect(first.comments.map((entry: any) => entry.body)).toEqual([1, 2, 3, 4, 5].map((n) => `person's comment ${n}`));
    const rest = await use(bot, 'list_comments', { id: mine.id, cursor: first.next_cursor });
    expect(rest.comments).toHaveLength(7);
    expect(rest.next_cursor).toBeNull();
    const newest = await use(bot, 'list_comments', { id: mine.id, order: 'newest', limit: 2 });
    expect(newest.comments.map((entry: any) => entry.body)).toEqual(["person's comment 12", "person's comment 11"]);
    const older = await use(bot, 'list_comments', {
      id: mine.id,
      order: 'newest',
      limit: 2,
      cursor: newest.next_cursor,
    });
    expect(older.comments.map((entry: any) => entry.body)).toEqual(["person's comment 10", "person's comment 9"]);
    // A cursor of one order does not continue the other.
    expect(await refused(bot, 'list_comments', { id: mine.id, cursor: newest.next_cursor })).toMatch(
      /agentdesk refused \(4\d\d/,
    );
    // A viewer reads them too.
    expect((await use(viewer, 'list_comments', { id: mine.id, limit: 1 })).comments).toHaveLength(1);
  });

  it('ask_person waits and answers what the person said; the item is in progress again on a fresh lease', async () => {
    const mine = await claimed('mcp_ask');
    const waiting = use(bot, 'ask_person', {
      id: mine.id,
      question: 'Refund or replace?',
      options: ['refund', 'replace'],
      wait_s: 25,
    });
    await asked(mine.id);
    const during = await item(mine.id);
    expect(during).toMatchObject({ status: 'blocked', lease_expires_at: null });
    const open = (await api(desk.url, 'GET', '/questions?status=open', member)).body as any[];
    const question = open.find((entry) => entry.work_item_id === mine.id);
    expect(question).toMatchObject({ question: 'Refund or replace?', options: ['refund', 'replace'], status: 'open' });

    const answer = await api(desk.url, 'POST', `/work/${mine.id}/questions/${question.id}/answer`, member, {
      option: 'refund',
      answer: 'They asked twice.',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);

    const result = await waiting;
    expect(result).toMatchObject({
      id: question.id,
      status: 'answered',
      option: 'refund',
      answer: 'They asked twice.',
      answered_by: 'ada',
    });
    expect(result.next_step).toMatch(/in_progress for you again/);
    const resumed = await item(mine.id);
    expect(resumed).toMatchObject({ status: 'in_progress', assigned_agent: 'bot-1' });
    expect(Date.parse(resumed.lease_expires_at)).toBeGreaterThan(Date.now());
  });

  it('ask_person that times out says to call get_answer, which answers once the person has', async () => {
    const mine = await claimed('mcp_later');
    const open = await use(bot, 'ask_person', { id: mine.id, question: 'Which customer is this for?', wait_s: 0 });
    expect(open).toMatchObject({ status: 'open', answer: null, options: null });
    expect(open.next_step).toContain('get_answer');
    expect(open.next_step).toContain(open.id);

    // One open question per item: a second is refused, and the text names the way out.
    const second = await refused(bot, 'ask_person', { id: mine.id, question: 'And another thing?', wait_s: 0 });
    expect(second).toMatch(/^agentdesk refused \(409/);
    expect(second).toContain(`call get_answer with question_id "${open.id}"`);
    // Options are checked before anything is sent.
    expect(await refused(bot, 'ask_person', { id: mine.id, question: 'One?', options: ['only'] })).toMatch(
      /^Invalid arguments: options/,
    );
    expect(await refused(bot, 'get_answer', { id: mine.id, question_id: open.id, wait_s: 26 })).toMatch(
      /^Invalid arguments: wait_s/,
    );

    expect(await use(bot, 'get_answer', { id: mine.id, question_id: open.id, wait_s: 0 })).toMatchObject({
      status: 'open',
    });
    const answer = await api(desk.url, 'POST', `/work/${mine.id}/questions/${open.id}/answer`, member, {
      answer: 'Acme Ltd.',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const read = await use(bot, 'get_answer', { id: mine.id, question_id: open.id });
    expect(read).toMatchObject({ status: 'answered', answer: 'Acme Ltd.', answered_by: 'ada' });
    expect(read.next_step).toMatch(/^ada answered: Acme Ltd\./);
    // A viewer may read it too.
    expect(await use(viewer, 'get_answer', { id: mine.id, question_id: open.id, wait_s: 0 })).toMatchObject({
      status: 'answered',
    });
    // The question and its answer are on the timeline.
    expect((await comments(mine.id)).map((entry) => entry.kind)).toEqual(['question', 'answer']);
  });

  it('complete_work on an item that needs review says it was sent for review; the verdict reaches the agent', async () => {
    const project = await api(desk.url, 'POST', '/projects', admin, {
      name: `reviewed-${kind}`,
      review_required: true,
    });
    expect(project.status, JSON.stringify(project.body)).toBe(201);
    const mine = await claimed('mcp_review', { project_id: project.body.id });

    const sent = await use(bot, 'complete_work', { id: mine.id, notes: 'Fixed the timeout.', result: { pr: 7 } });
    expect(sent).toMatchObject({
      id: mine.id,
      status: 'blocked',
      notes: 'Fixed the timeout.',
      payload: { result: { pr: 7 } },
    });
    expect(sent.review).toMatchObject({ kind: 'review', status: 'open', options: ['approve', 'return'] });
    expect(sent.next_step).toMatch(/^Sent for review/);

    const returned = await api(desk.url, 'POST', `/work/${mine.id}/questions/${sent.review.id}/answer`, member, {
      option: 'return',
      answer: 'Add a test.',
    });
    expect(returned.status, JSON.stringify(returned.body)).toBe(200);
    const verdict = await use(bot, 'get_answer', { id: mine.id, question_id: sent.review.id });
    expect(verdict).toMatchObject({ status: 'answered', option: 'return', answer: 'Add a test.' });
    expect(verdict.next_step).toMatch(/returned it: Add a test\..*complete_work/);
    expect((await item(mine.id)).status).toBe('in_progress');

    const again = await use(bot, 'complete_work', { id: mine.id });
    expect(again.next_step).toMatch(/^Sent for review/);
    const approve = await api(desk.url, 'POST', `/work/${mine.id}/questions/${again.review.id}/answer`, member, {
      option: 'approve',
    });
    expect(approve.status, JSON.stringify(approve.body)).toBe(200);
    const approved = await use(bot, 'get_answer', { id: mine.id, question_id: again.review.id, wait_s: 0 });
    expect(approved.next_step).toMatch(/approved it; the item is completed/);
    expect(await item(mine.id)).toMatchObject({ status: 'completed', outcome: 'success' });

    // Without review, complete_work answers the completed item and no review.
    const plain = await claimed('mcp_plain');
    const done = await use(bot, 'complete_work', { id: plain.id });
    expect(done).toMatchObject({ status: 'completed' });
    expect(done).not.toHaveProperty('review');
    expect(done).not.toHaveProperty('next_step');
  });
});
