import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWEEP_EVERY_MS } from '../../src/work/agent-loop/lease-sweeper.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { UUID_RE, call } from '../support/http.js';

// Through HTTP with tokens on both stores: an agent's comments, its question to a
// person and its wait for the answer, the review gate, who may do what, and bad input. The
// clock is the test's; the lease sweeper runs when the test says.

const NO_TIMER_MS = 60 * 60 * 1000;

describe.each(await storesUnderTest())('the conversation on %s', (kind) => {
  let t: TestApp;
  const clock = createTestClock();
  let sweeper: () => Promise<number> = async () => 0;
  const as = {} as Record<'admin' | 'ada' | 'bob' | 'mia' | 'viewer' | 'intake', Record<string, string>>;

  beforeAll(async () => {
    t = await startWorkApp(
      kind,
      { ...AUTH_ENV },
      { now: clock.now, sweepEveryMs: NO_TIMER_MS, onLeaseSweeper: (sweep) => (sweeper = sweep) },
    );
    as.admin = bearer(ADMIN_SECRET);
    as.ada = bearer((await mintToken(t.app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token);
    as.bob = bearer((await mintToken(t.app, { role: 'agent', name: 'bob-token', agent: 'bob' })).token);
    as.mia = bearer((await mintToken(t.app, { role: 'member', name: 'mia' })).token);
    as.viewer = bearer((await mintToken(t.app, { role: 'viewer', name: 'vic' })).token);
    as.intake = bearer((await mintToken(t.app, { role: 'intake', name: 'mailer' })).token);
  });
  afterAll(() => t?.close());

  const get = async (id: string) => (await call(t.app, 'GET', `/work/${id}`, undefined, as.admin)).body;
  /** A fresh item of its own type, claimed by ada on a lease of `lease_s`. */
  const claimed = async (extra: Record<string, unknown> = {}, lease_s = 120) => {
    const type = `conv-${Math.random().toString(36).slice(2, 8)}`;
    const submitted = await call(
      t.app,
      'POST',
      '/work',
      { type, description: 'write the release notes', ...extra },
      as.admin,
    );
    expect(submitted.status, submitted.text).toBe(201);
    const claim = await call(t.app, 'POST', '/work/claim', { types: [type], lease_s }, as.ada);
    expect(claim.status, claim.text).toBe(200);
    expect(claim.body.id).toBe(submitted.body.id);
    return claim.body as { id: string; version: number };
  };
  const ask = (id: string, body: unknown, who = as.ada) => call(t.app, 'POST', `/work/${id}/questions`, body, who);
  const answer = (id: string, qid: string, body: unknown, who = as.mia) =>
    call(t.app, 'POST', `/work/${id}/questions/${qid}/answer`, body, who);

  it('the whole loop: the agent comments, asks with options and waits; a member answers; the item resumes on a new lease', async () => {
    const item = await claimed();
    const comment = await call(
      t.app,
      'POST',
      `/work/${item.id}/comments`,
      { body: 'Drafted the **intro**.', kind: 'progress', links: [{ url: 'https://example.com/pr/1', title: 'PR' }] },
      as.ada,
    );
    expect(comment.status, comment.text).toBe(201);
    expect(comment.body).toMatchObject({
      work_item_id: item.id,
      author: 'ada',
      role: 'agent',
      kind: 'progress',
      links: [{ url: 'https://example.com/pr/1', title: 'PR' }],
    });
    expect(comment.headers.location).toBe(`/work/${item.id}/comments/${comment.body.id}`);
    expect((await get(item.id)).comment_count).toBe(1);

    const asked = await ask(item.id, {
      question: 'Ship to staging or production?',
      options: ['staging', 'production'],
    });
    expect(asked.status, asked.text).toBe(201);
    expect(asked.body).toMatchObject({
      work_item_id: item.id,
      kind: 'question',
      asked_by: 'ada',
      status: 'open',
      options: ['staging', 'production'],
      answer: null,
      option: null,
      answered_by: null,
      answered_at: null,
    });
    expect(asked.body.id).toMatch(UUID_RE);
    const blocked = await get(item.id);
    expect(blocked).toMatchObject({
      status: 'blocked',
      assigned_agent: 'ada',
      lease_expires_at: null,
      comment_count: 2,
    });

    // The agent waits; the answer wakes it (a commit of this process: no polling, no sleeping).
    const waiting = call(t.app, 'GET', `/work/${item.id}/questions/${asked.body.id}?wait_s=30`, undefined, as.ada);
    clock.advance(45_000);
    const answered = await answer(item.id, asked.body.id, { option: 'staging' });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ status: 'answered', option: 'staging', answered_by: 'mia' });
    const waited = await waiting;
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({ id: asked.body.id, status: 'answered', option: 'staging', answered_by: 'mia' });

    const resumed = await get(item.id);
    expect(resumed).toMatchObject({ status: 'in_progress', assigned_agent: 'ada', comment_count: 3 });
    expect(resumed.lease_expires_at).toBe(new Date(clock.now().getTime() + 120_000).toISOString());

    const timeline = (await call(t.app, 'GET', `/work/${item.id}/comments`, undefined, as.viewer)).body;
    expect(timeline.map((c: any) => [c.kind, c.author, c.role])).toEqual([
      ['progress', 'ada', 'agent'],
      ['question', 'ada', 'agent'],
      ['answer', 'mia', 'member'],
    ]);
    const history = (await call(t.app, 'GET', `/work/${item.id}/history`, undefined, as.admin)).body;
    expect(history.map((h: any) => [h.action, h.actor, h.role]).slice(-2)).toEqual([
      ['ask', 'ada', 'agent'],
      ['answer', 'mia', 'member'],
    ]);
    expect(history.at(-2).changes.status).toEqual({ from: 'in_progress', to: 'blocked' });
    expect(history.at(-1).changes.status).toEqual({ from: 'blocked', to: 'in_progress' });

    // Events for /events, carrying the item's agent, type and project for its filters.
    const events = await sql<{ type: string; data: string }>`SELECT type, data FROM events ORDER BY id`.execute(
      t.database.kysely,
    );
    const mine = events.rows.filter(
      (e) => e.type !== 'work.updated' && e.type !== 'work.created' && JSON.parse(e.data).work_item_id === item.id,
    );
    expect(mine.map((e) => e.type)).toEqual([
      'work.commented',
      'question.asked',
      'work.commented',
      'question.answered',
      'work.commented',
    ]);
    expect(JSON.parse(mine[1]!.data)).toMatchObject({ assigned_agent: 'ada', project_id: null });
  });

  it('one open question per item; agents never answer; a second answer is a 409 carrying the first', async () => {
    const item = await claimed();
    const first = await ask(item.id, { question: 'Which locale?' });
    expect(first.status).toBe(201);
    const second = await ask(item.id, { question: 'And the font?' }, as.mia);
    expect(second.status).toBe(409);
    expect(second.body.open_question.id).toBe(first.body.id);
    expect(second.body.detail).toContain(first.body.id);

    expect((await answer(item.id, first.body.id, { answer: 'en-GB' }, as.ada)).status).toBe(403);
    expect((await answer(item.id, first.body.id, { answer: 'en-GB' }, as.viewer)).status).toBe(403);
    expect((await answer(item.id, first.body.id, { answer: 'en-GB' })).status).toBe(200);
    const again = await answer(item.id, first.body.id, { answer: 'fr-FR' }, as.admin);
    expect(again.status).toBe(409);
    expect(again.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(again.body.question).toMatchObject({ id: first.body.id, answer: 'en-GB', answered_by: 'mia' });
  });

  it('bad input is a clear 4xx problem', async () => {
    const item = await claimed();
    const problem = async (response: Promise<{ status: number; headers: any; body: any }>, status: number) => {
      const r = await response;
      expect(r.status).toBe(status);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      return r.body;
    };
    await problem(ask(item.id, { question: '' }), 422);
    await problem(ask(item.id, { question: 'pick', options: Array.from({ length: 11 }, (_, i) => `o${i}`) }), 422);
    await problem(ask(item.id, { question: 'pick', options: ['same', 'same'] }), 422);
    await problem(ask(item.id, { question: 'pick', options: ['only one'] }), 422);
    const bad = await problem(
      call(
        t.app,
        'POST',
        `/work/${item.id}/comments`,
        { body: 'see', links: [{ url: 'javascript:alert(1)' }] },
        as.ada,
      ),
      422,
    );
    expect(JSON.stringify(bad)).toContain('http or https');
    await problem(call(t.app, 'POST', `/work/${item.id}/comments`, { body: '' }, as.ada), 422);
    await problem(call(t.app, 'POST', `/work/${item.id}/comments`, { body: 'x'.repeat(16_385) }, as.ada), 422);
    await problem(
      call(
        t.app,
        'POST',
        `/work/${item.id}/comments`,
        { body: 'x', links: Array.from({ length: 21 }, () => ({ url: 'https://e.com' })) },
        as.ada,
      ),
      422,
    );
    await problem(call(t.app, 'POST', `/work/${item.id}/comments`, { body: 'x', kind: 'answer' }, as.ada), 422);

    const asked = await ask(item.id, { question: 'Which?', options: ['left', 'right'] });
    expect(asked.status).toBe(201);
    await problem(answer(item.id, asked.body.id, { option: 'middle' }), 422);
    await problem(answer(item.id, asked.body.id, { answer: 'left' }), 422);
    await problem(answer(item.id, asked.body.id, {}), 422);
    expect((await answer(item.id, asked.body.id, { option: 'left' })).status).toBe(200);
    await problem(answer(item.id, asked.body.id, { option: 'right' }), 409);
    await problem(call(t.app, 'GET', `/work/${item.id}/questions/${asked.body.id}?wait_s=31`, undefined, as.ada), 422);
    await problem(
      call(t.app, 'GET', `/work/${item.id}/questions/00000000-0000-4000-8000-000000000000`, undefined, as.ada),
      404,
    );
  });

  it('who may comment and ask: an agent on items it holds, held or created; a person on any; viewer and intake never', async () => {
    const item = await claimed();
    const note = { body: 'a note' };
    expect((await call(t.app, 'POST', `/work/${item.id}/comments`, note, as.bob)).status).toBe(403);
    expect((await call(t.app, 'POST', `/work/${item.id}/comments`, note, as.viewer)).status).toBe(403);
    expect((await call(t.app, 'POST', `/work/${item.id}/comments`, note, as.intake)).status).toBe(403);
    expect((await call(t.app, 'POST', `/work/${item.id}/comments`, note, as.mia)).status).toBe(201);
    expect((await ask(item.id, { question: 'mine?' }, as.bob)).status).toBe(403);

    // Held before: reassigned to bob, ada may still comment; bob now holds it.
    expect((await call(t.app, 'PATCH', `/work/${item.id}`, { agent: 'bob' }, as.admin)).status).toBe(200);
    expect((await call(t.app, 'POST', `/work/${item.id}/comments`, note, as.ada)).status).toBe(201);
    expect((await call(t.app, 'POST', `/work/${item.id}/comments`, note, as.bob)).status).toBe(201);
    // Created: bob's own submission.
    const own = await call(t.app, 'POST', '/work', { type: 'conv-own', description: 'bob filed this' }, as.bob);
    expect((await call(t.app, 'POST', `/work/${own.body.id}/comments`, note, as.bob)).status).toBe(201);
    // An agent asks only about the item it holds and works on.
    expect((await ask(own.body.id, { question: 'queued?' }, as.bob)).status).toBe(403);
    expect((await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'in_progress' }, as.bob)).status).toBe(200);
    expect((await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'blocked' }, as.bob)).status).toBe(200);
    expect((await ask(item.id, { question: 'blocked?' }, as.bob)).status).toBe(409);
    // Final items take comments (a post-mortem).
    expect(
      (await call(t.app, 'PATCH', `/work/${own.body.id}`, { status: 'cancelled', outcome: 'cancelled' }, as.admin))
        .status,
    ).toBe(200);
    expect((await call(t.app, 'POST', `/work/${own.body.id}/comments`, note, as.mia)).status).toBe(201);
    expect((await ask(own.body.id, { question: 'why?' }, as.mia)).status).toBe(409);
  });

  it('comments page oldest first with Link rel=next; an admin deletes one and the history records it', async () => {
    const item = await claimed();
    for (const body of ['one', 'two', 'three']) {
      expect((await call(t.app, 'POST', `/work/${item.id}/comments`, { body }, as.ada)).status).toBe(201);
      clock.advance(1);
    }
    const first = await call(t.app, 'GET', `/work/${item.id}/comments?limit=2`, undefined, as.viewer);
    expect(first.body.map((c: any) => c.body)).toEqual(['one', 'two']);
    const link = String(first.headers.link);
    expect(link).toMatch(/rel="next"/);
    const next = await call(t.app, 'GET', /<([^>]+)>/.exec(link)![1]!, undefined, as.viewer);
    expect(next.body.map((c: any) => c.body)).toEqual(['three']);
    expect(next.headers.link).toBeUndefined();

    expect(
      (await call(t.app, 'DELETE', `/work/${item.id}/comments/${first.body[0].id}`, undefined, as.mia)).status,
    ).toBe(403);
    expect(
      (await call(t.app, 'DELETE', `/work/${item.id}/comments/${first.body[0].id}`, undefined, as.admin)).status,
    ).toBe(204);
    expect(
      (await call(t.app, 'DELETE', `/work/${item.id}/comments/${first.body[0].id}`, undefined, as.admin)).status,
    ).toBe(404);
    expect((await get(item.id)).comment_count).toBe(2);
    const history = (await call(t.app, 'GET', `/work/${item.id}/history`, undefined, as.admin)).body;
    expect(history.at(-1)).toMatchObject({
      action: 'comment_deleted',
      actor: expect.any(String),
      changes: { comment: { id: first.body[0].id } },
    });
    expect((await call(t.app, 'GET', `/work/${item.id}/comments?cursor=bm9wZQ`, undefined, as.viewer)).status).toBe(
      422,
    );
    // Year 0 has the shape of a time and reads back as itself, but PostgreSQL has no year 0.
    const yearZero = Buffer.from(JSON.stringify(['comments', '0000-01-01T00:00:00.000Z', first.body[0].id])).toString(
      'base64url',
    );
    expect(
      (await call(t.app, 'GET', `/work/${item.id}/comments?cursor=${yearZero}`, undefined, as.viewer)).status,
    ).toBe(422);
  });

  it('a question never expires a lease: the sweeper skips the blocked item, the answer starts a fresh lease', async () => {
    const item = await claimed({}, 60);
    const asked = await ask(item.id, { question: 'Is the budget approved?' });
    expect(asked.status).toBe(201);
    for (let i = 0; i < 20; i += 1) {
      clock.advance(SWEEP_EVERY_MS * 10);
      await sweeper();
    }
    expect(await get(item.id)).toMatchObject({
      status: 'blocked',
      assigned_agent: 'ada',
      attempts: 1,
      lease_expires_at: null,
    });
    expect((await answer(item.id, asked.body.id, { answer: 'Yes.' })).status).toBe(200);
    const resumed = await get(item.id);
    expect(resumed).toMatchObject({ status: 'in_progress', assigned_agent: 'ada' });
    expect(resumed.lease_expires_at).toBe(new Date(clock.now().getTime() + 60_000).toISOString());
  });

  it('the inbox: open questions oldest first with their items, answered newest first; the count', async () => {
    const project = (await call(t.app, 'POST', '/projects', { name: `inbox-${kind}` }, as.admin)).body;
    const a = await claimed({ project_id: project.id, priority: 2 });
    clock.advance(10);
    const b = await claimed({ project_id: project.id });
    const qa = (await ask(a.id, { question: 'first?' })).body;
    clock.advance(10);
    const qb = (await ask(b.id, { question: 'second?' })).body;
    const open = (await call(t.app, 'GET', `/questions?status=open&project_id=${project.id}`, undefined, as.viewer))
      .body;
    expect(open.map((q: any) => q.id)).toEqual([qa.id, qb.id]);
    expect(open[0].item).toMatchObject({
      id: a.id,
      description: 'write the release notes',
      priority: 2,
      project_id: project.id,
      assigned_agent: 'ada',
      status: 'blocked',
    });
    const paged = await call(t.app, 'GET', `/questions?project_id=${project.id}&limit=1`, undefined, as.viewer);
    expect(paged.body.map((q: any) => q.id)).toEqual([qa.id]);
    expect(String(paged.headers.link)).toMatch(/rel="next"/);
    const count = (await call(t.app, 'GET', '/questions/counts', undefined, as.viewer)).body.open;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(
      (await call(t.app, 'GET', '/questions?agent=bob', undefined, as.viewer)).body.filter(
        (q: any) => q.item.project_id === project.id,
      ),
    ).toEqual([]);

    clock.advance(10);
    await answer(a.id, qa.id, { answer: 'ok' });
    clock.advance(10);
    await answer(b.id, qb.id, { answer: 'ok' });
    const answered = (
      await call(t.app, 'GET', `/questions?status=answered&project_id=${project.id}`, undefined, as.viewer)
    ).body;
    expect(answered.map((q: any) => q.id)).toEqual([qb.id, qa.id]);
    expect((await call(t.app, 'GET', '/questions/counts', undefined, as.viewer)).body.open).toBe(count - 2);
    expect(
      (await call(t.app, 'GET', `/work/${a.id}/questions`, undefined, as.viewer)).body.map((q: any) => q.status),
    ).toEqual(['answered']);
  });

  it('review: the complete waits for a person; an agent cannot approve; return with a reason; then approve completes it', async () => {
    const project = (
      await call(t.app, 'POST', '/projects', { name: `reviewed-${kind}`, review_required: true }, as.admin)
    ).body;
    expect(project.review_required).toBe(true);
    const item = await claimed({ project_id: project.id });
    const done = { status: 'completed', outcome: 'success', notes: 'Release notes written.' };
    const sent = await call(t.app, 'PATCH', `/work/${item.id}`, done, as.ada);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({
      status: 'blocked',
      notes: 'Release notes written.',
      outcome: null,
      completed_at: null,
      lease_expires_at: null,
    });
    const [review] = (await call(t.app, 'GET', `/work/${item.id}/questions`, undefined, as.ada)).body;
    expect(review).toMatchObject({ kind: 'review', status: 'open', options: ['approve', 'return'], asked_by: 'ada' });

    expect((await answer(item.id, review.id, { option: 'approve' }, as.ada)).status).toBe(403);
    expect((await answer(item.id, review.id, { option: 'approve' }, as.bob)).status).toBe(403);
    expect((await answer(item.id, review.id, { option: 'return' })).status).toBe(422);
    const returned = await answer(item.id, review.id, { option: 'return', answer: 'Add the migration notes.' });
    expect(returned.status, returned.text).toBe(200);
    const back = await get(item.id);
    expect(back).toMatchObject({ status: 'in_progress', assigned_agent: 'ada' });
    expect(back.lease_expires_at).not.toBeNull();
    const timeline = (await call(t.app, 'GET', `/work/${item.id}/comments`, undefined, as.ada)).body;
    expect(timeline.at(-1)).toMatchObject({ kind: 'answer', author: 'mia', body: 'return: Add the migration notes.' });

    const again = await call(t.app, 'PATCH', `/work/${item.id}`, done, as.ada);
    expect(again.body.status).toBe('blocked');
    const second = (await call(t.app, 'GET', `/work/${item.id}/questions`, undefined, as.ada)).body.find(
      (q: any) => q.status === 'open',
    );
    const approved = await answer(item.id, second.id, { option: 'approve' });
    expect(approved.status).toBe(200);
    const final = await get(item.id);
    expect(final).toMatchObject({ status: 'completed', outcome: 'success', lease_expires_at: null });
    expect(final.completed_at).toBe(clock.now().toISOString());
    expect(final.dispatch_log.at(-1)).toMatchObject({ agent: 'ada', outcome: 'success', reason: 'completed' });
    const history = (await call(t.app, 'GET', `/work/${item.id}/history`, undefined, as.admin)).body;
    expect(history.map((h: any) => h.action).slice(-4)).toEqual([
      'send_for_review',
      'return',
      'send_for_review',
      'approve',
    ]);
    expect(history.at(-1)).toMatchObject({ actor: 'mia', role: 'member' });
  });

  it('review_required on the item overrides the project; fail needs no review; PATCH sets it', async () => {
    const project = (
      await call(t.app, 'POST', '/projects', { name: `strict-${kind}`, review_required: true }, as.admin)
    ).body;
    const free = await claimed({ project_id: project.id, review_required: false });
    expect((await get(free.id)).review_required).toBe(false);
    expect(
      (await call(t.app, 'PATCH', `/work/${free.id}`, { status: 'completed', outcome: 'success' }, as.ada)).body.status,
    ).toBe('completed');

    const failing = await claimed({ project_id: project.id });
    expect(
      (await call(t.app, 'PATCH', `/work/${failing.id}`, { status: 'failed', outcome: 'failed' }, as.ada)).body.status,
    ).toBe('failed');

    const plain = await claimed();
    expect(
      (await call(t.app, 'PATCH', `/work/${plain.id}`, { review_required: true }, as.ada)).body.review_required,
    ).toBe(true);
    expect(
      (await call(t.app, 'PATCH', `/work/${plain.id}`, { status: 'completed', outcome: 'success' }, as.ada)).body
        .status,
    ).toBe('blocked');

    // The project's setting is read as it is now.
    const lax = (await call(t.app, 'POST', '/projects', { name: `lax-${kind}` }, as.admin)).body;
    expect(lax.review_required).toBe(false);
    const later = await claimed({ project_id: lax.id });
    expect(
      (await call(t.app, 'PATCH', `/projects/${lax.id}`, { review_required: true }, as.admin)).body.review_required,
    ).toBe(true);
    expect(
      (await call(t.app, 'PATCH', `/work/${later.id}`, { status: 'completed', outcome: 'success' }, as.ada)).body
        .status,
    ).toBe('blocked');
  });

  it('a member token is bound to its name: it moves items dispatched to it, not others', async () => {
    const mine = await call(
      t.app,
      'POST',
      '/work',
      { type: 'conv-member', description: 'for mia', agent: 'mia' },
      as.admin,
    );
    expect((await call(t.app, 'PATCH', `/work/${mine.body.id}`, { status: 'in_progress' }, as.mia)).status).toBe(200);
    const ada = await claimed();
    expect((await call(t.app, 'PATCH', `/work/${ada.id}`, { notes: 'hijack' }, as.mia)).status).toBe(403);
    expect((await call(t.app, 'DELETE', `/work/${ada.id}`, undefined, as.mia)).status).toBe(403);
    expect((await call(t.app, 'POST', '/projects', { name: 'nope' }, as.mia)).status).toBe(403);
    expect((await call(t.app, 'POST', '/tokens', { name: 'nope', role: 'viewer' }, as.mia)).status).toBe(403);
    const session = (await call(t.app, 'GET', '/session', undefined, as.mia)).body;
    expect(session.principal).toMatchObject({ name: 'mia', role: 'member', agent: 'mia' });
  });
});

describe.each(await storesUnderTest())('a wait for an answer on %s', (kind) => {
  let t: TestApp;
  let base = '';
  beforeAll(async () => {
    t = await startWorkApp(kind);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t?.close());

  const waitingNow = async () => {
    const text = (await call(t.app, 'GET', '/metrics')).text;
    return Number(/^agentdesk_work_answers_waiting (\d+)$/m.exec(text)?.[1]);
  };
  /** Turns of the event loop until `done` holds (no sleeping: each turn lets the server move on). */
  const until = async (done: () => Promise<boolean>) => {
    for (let i = 0; i < 2_000 && !(await done()); i += 1) await new Promise((resolve) => setImmediate(resolve));
    return done();
  };

  it('a client that hangs up leaves nothing behind; the answer still lands', async () => {
    const item = (await call(t.app, 'POST', '/work', { type: 'hangup', description: 'asked', agent: 'ada' })).body;
    await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'in_progress', agent: 'ada' });
    const asked = (await call(t.app, 'POST', `/work/${item.id}/questions`, { question: 'Still there?' })).body;
    const left = new AbortController();
    const request = fetch(`${base}/work/${item.id}/questions/${asked.id}?wait_s=30`, { signal: left.signal }).catch(
      (error: unknown) => error,
    );
    expect(await until(async () => (await waitingNow()) === 1)).toBe(true);
    left.abort();
    expect(await request).toBeInstanceOf(Error);
    expect(await until(async () => (await waitingNow()) === 0)).toBe(true);
    const answered = await call(t.app, 'POST', `/work/${item.id}/questions/${asked.id}/answer`, { answer: 'yes' });
    expect(answered.status).toBe(200);
    expect((await call(t.app, 'GET', `/work/${item.id}/questions/${asked.id}?wait_s=30`)).body).toMatchObject({
      status: 'answered',
      answer: 'yes',
    });
  });
});
