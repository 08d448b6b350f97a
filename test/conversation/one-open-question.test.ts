import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// One open question per item, held by a unique index: every way of meeting that index answers
// 409 naming the open question, never a hang (SQLite's one connection) or a 503 (PostgreSQL's
// pool). The test databases refuse a second connection taken inside a transaction
// (helpers/connection-guard.ts), so a path that would wait for one fails here instead.

describe.each(await storesUnderTest())('one open question on %s', (kind) => {
  let t: TestApp;
  const as = {} as Record<'admin' | 'ada' | 'mia' | 'people', Record<string, string>[]>;
  const one = (who: keyof typeof as) => as[who][0]!;

  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV });
    as.admin = [bearer(ADMIN_SECRET)];
    as.ada = [bearer((await mintToken(t.app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token)];
    as.mia = [bearer((await mintToken(t.app, { role: 'member', name: 'mia' })).token)];
    as.people = [];
    for (let i = 0; i < 20; i++)
      as.people.push(bearer((await mintToken(t.app, { role: 'member', name: `person-${i}` })).token));
  });
  afterAll(() => t?.close());

  const healthy = async () => expect((await call(t.app, 'GET', '/health')).status).toBe(200);
  const submit = async (extra: Record<string, unknown> = {}) => {
    const type = `one-open-${Math.random().toString(36).slice(2, 8)}`;
    const submitted = await call(
      t.app,
      'POST',
      '/work',
      { type, description: 'write the release notes', ...extra },
      one('admin'),
    );
    expect(submitted.status, submitted.text).toBe(201);
    return { id: submitted.body.id as string, type };
  };
  const claim = async (type: string) => {
    const claimed = await call(t.app, 'POST', '/work/claim', { types: [type] }, one('ada'));
    expect(claimed.status, claimed.text).toBe(200);
    return claimed.body;
  };
  const reviewProject = async () =>
    (
      await call(
        t.app,
        'POST',
        '/projects',
        { name: `reviewed-${Math.random().toString(36).slice(2, 8)}`, review_required: true },
        one('admin'),
      )
    ).body;
  const done = { status: 'completed', outcome: 'success', notes: 'done' };

  it("a person's question about a queued item, then the agent completes it in a review project: 409 naming the question", async () => {
    const project = await reviewProject();
    const item = await submit({ project_id: project.id });
    const asked = await call(
      t.app,
      'POST',
      `/work/${item.id}/questions`,
      { question: 'Is this still wanted?' },
      one('mia'),
    );
    expect(asked.status, asked.text).toBe(201);
    await claim(item.type);
    const completed = await call(t.app, 'PATCH', `/work/${item.id}`, done, one('ada'));
    expect(completed.status, completed.text).toBe(409);
    expect(completed.body.open_question).toMatchObject({ id: asked.body.id, status: 'open' });
    expect((await call(t.app, 'GET', `/work/${item.id}`, undefined, one('admin'))).body.status).toBe('in_progress');
    await healthy();
  });

  it('six people ask about one item at once: one question, five 409s naming it', async () => {
    const item = await submit();
    const asks = await Promise.all(
      as.people
        .slice(0, 6)
        .map((who, i) => call(t.app, 'POST', `/work/${item.id}/questions`, { question: `question ${i}` }, who)),
    );
    const won = asks.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    for (const lost of asks.filter((r) => r.status !== 201)) {
      expect(lost.status, lost.text).toBe(409);
      expect(lost.body.open_question.id).toBe(won[0]!.body.id);
    }
    await healthy();
  });

  it('the agent unblocks its own item that waits for review and completes again: 409 naming the review', async () => {
    const project = await reviewProject();
    const item = await submit({ project_id: project.id });
    await claim(item.type);
    expect((await call(t.app, 'PATCH', `/work/${item.id}`, done, one('ada'))).body.status).toBe('blocked');
    const [review] = (await call(t.app, 'GET', `/work/${item.id}/questions`, undefined, one('ada'))).body;
    const unblocked = await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'in_progress' }, one('ada'));
    expect(unblocked.status, unblocked.text).toBe(200);
    const again = await call(t.app, 'PATCH', `/work/${item.id}`, done, one('ada'));
    expect(again.status, again.text).toBe(409);
    expect(again.body.open_question).toMatchObject({ id: review.id, kind: 'review' });
    await healthy();
  });

  it('20 concurrent asks: one wins, the rest 409 (no 503); 20 concurrent answers: one wins, the rest 409', async () => {
    const item = await submit();
    const asks = await Promise.all(
      as.people.map((who, i) => call(t.app, 'POST', `/work/${item.id}/questions`, { question: `q${i}` }, who)),
    );
    expect(asks.map((r) => r.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    const question = asks.find((r) => r.status === 201)!.body;
    const answers = await Promise.all(
      as.people.map((who, i) =>
        call(t.app, 'POST', `/work/${item.id}/questions/${question.id}/answer`, { answer: `a${i}` }, who),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    const winner = answers.find((r) => r.status === 200)!.body;
    for (const lost of answers.filter((r) => r.status === 409))
      expect(lost.body.question).toMatchObject({ id: question.id, answered_by: winner.answered_by });
    await healthy();
  });
});
