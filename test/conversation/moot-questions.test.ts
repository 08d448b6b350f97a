import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// A final item (completed, failed, cancelled) closes its open question in the same commit:
// marked moot, a note on its timeline, a question.moot event; it leaves the inbox and the
// count, and answering it is a 409. Waits end: at most QUESTION_WAITS_PER_CALLER per caller.

describe.each(await storesUnderTest())('moot questions and waits on %s', (kind) => {
  let t: TestApp;
  const as = {} as Record<'admin' | 'ada' | 'mia', Record<string, string>>;

  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV, QUESTION_WAITS_PER_CALLER: '2' });
    as.admin = bearer(ADMIN_SECRET);
    as.ada = bearer((await mintToken(t.app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token);
    as.mia = bearer((await mintToken(t.app, { role: 'member', name: 'mia' })).token);
  });
  afterAll(() => t?.close());

  const submit = async () => {
    const type = `moot-${Math.random().toString(36).slice(2, 8)}`;
    const submitted = await call(t.app, 'POST', '/work', { type, description: 'write the release notes' }, as.admin);
    expect(submitted.status, submitted.text).toBe(201);
    return { id: submitted.body.id as string, type };
  };
  const claimed = async () => {
    const item = await submit();
    expect((await call(t.app, 'POST', '/work/claim', { types: [item.type] }, as.ada)).status).toBe(200);
    return item;
  };
  const ask = async (id: string, who: Record<string, string>) => {
    const asked = await call(t.app, 'POST', `/work/${id}/questions`, { question: 'Still wanted?' }, who);
    expect(asked.status, asked.text).toBe(201);
    return asked.body as { id: string };
  };
  const openCount = async () =>
    (await call(t.app, 'GET', '/questions/counts', undefined, as.admin)).body.open as number;
  const inboxIds = async () =>
    ((await call(t.app, 'GET', '/questions?limit=100', undefined, as.admin)).body as { id: string }[]).map((q) => q.id);
  const events = async (type: string) =>
    (await t.database.kysely.selectFrom('events').select(['type', 'data']).where('type', '=', type).execute()).map(
      (e: any) => JSON.parse(e.data),
    );

  const finals = [
    [
      'cancelled by a person while queued',
      async (id: string) =>
        call(t.app, 'PATCH', `/work/${id}`, { status: 'cancelled', outcome: 'cancelled' }, as.admin),
      'cancelled',
    ],
    [
      'failed by its agent',
      async (id: string) =>
        call(t.app, 'PATCH', `/work/${id}`, { status: 'failed', outcome: 'failed', agent: 'ada' }, as.ada),
      'failed',
    ],
    [
      'completed by its agent',
      async (id: string) =>
        call(t.app, 'PATCH', `/work/${id}`, { status: 'completed', outcome: 'success', agent: 'ada' }, as.ada),
      'completed',
    ],
  ] as const;

  for (const [how, finish, status] of finals) {
    it(`an item ${how} closes a person's open question: moot, noted, announced, out of the inbox and the count, no answer`, async () => {
      const before = await openCount();
      const item = await submit();
      const question = await ask(item.id, as.mia);
      expect(await openCount()).toBe(before + 1);
      if (status !== 'cancelled')
        expect((await call(t.app, 'POST', '/work/claim', { types: [item.type] }, as.ada)).body.id).toBe(item.id);
      const waiting = call(t.app, 'GET', `/work/${item.id}/questions/${question.id}?wait_s=30`, undefined, as.ada);

      const finished = await finish(item.id);
      expect(finished.status, finished.text).toBe(200);
      expect(finished.body.status).toBe(status);

      const [listed] = (await call(t.app, 'GET', `/work/${item.id}/questions`, undefined, as.admin)).body;
      expect(listed).toMatchObject({ id: question.id, status: 'moot', answer: null, answered_by: null });
      expect((await waiting).body).toMatchObject({ id: question.id, status: 'moot' });
      const timeline = (await call(t.app, 'GET', `/work/${item.id}/comments`, undefined, as.admin)).body;
      expect(timeline.at(-1)).toMatchObject({ kind: 'note', author: 'agentdesk', role: 'system' });
      expect(timeline.at(-1).body).toContain(status);
      expect((await call(t.app, 'GET', `/work/${item.id}`, undefined, as.admin)).body.comment_count).toBe(
        timeline.length,
      );
      expect((await events('question.moot')).filter((e) => e.id === question.id)).toEqual([
        expect.objectContaining({ status: 'moot', work_item_id: item.id }),
      ]);
      expect(await inboxIds()).not.toContain(question.id);
      expect(await openCount()).toBe(before);

      const late = await call(
        t.app,
        'POST',
        `/work/${item.id}/questions/${question.id}/answer`,
        { answer: 'yes' },
        as.mia,
      );
      expect(late.status, late.text).toBe(409);
      expect(late.body.detail).toContain('closed unanswered');
      expect(late.body.question).toMatchObject({ status: 'moot' });
    });
  }

  it("an agent's own question, the item blocked, then failed by a person: the question is moot", async () => {
    const item = await claimed();
    const question = await ask(item.id, as.ada);
    expect(
      (await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'failed', outcome: 'failed' }, as.admin)).body.status,
    ).toBe('failed');
    const found = (await call(t.app, 'GET', `/work/${item.id}/questions/${question.id}`, undefined, as.ada)).body;
    expect(found.status).toBe('moot');
    expect((await call(t.app, 'POST', `/work/${item.id}/questions`, { question: 'again?' }, as.mia)).status).toBe(409);
  });

  it('a caller holds at most QUESTION_WAITS_PER_CALLER waits: one more is a 429; another caller still waits', async () => {
    const items = [await submit(), await submit(), await submit()];
    const questions: { id: string }[] = [];
    for (const item of items) questions.push(await ask(item.id, as.admin));
    const url = (i: number) => `/work/${items[i]!.id}/questions/${questions[i]!.id}?wait_s=30`;
    const waiting = async () =>
      Number(
        /agentdesk_work_answers_waiting (\d+)/.exec(
          (await call(t.app, 'GET', '/metrics', undefined, as.admin)).text,
        )?.[1] ?? -1,
      );
    const idle = await waiting();
    const waits = [call(t.app, 'GET', url(0), undefined, as.mia), call(t.app, 'GET', url(1), undefined, as.mia)];
    await expect.poll(waiting, { timeout: 20_000 }).toBe(idle + 2);
    const third = await call(t.app, 'GET', url(2), undefined, as.mia);
    expect(third.status, third.text).toBe(429);
    expect(third.body.detail).toContain('QUESTION_WAITS_PER_CALLER');
    expect(
      (await call(t.app, 'GET', `/work/${items[2]!.id}/questions/${questions[2]!.id}`, undefined, as.mia)).status,
    ).toBe(200);
    const other = call(t.app, 'GET', url(2), undefined, as.ada);
    await expect.poll(waiting, { timeout: 20_000 }).toBe(idle + 3);
    for (const [i, item] of items.entries()) {
      expect(
        (
          await call(
            t.app,
            'POST',
            `/work/${item.id}/questions/${questions[i]!.id}/answer`,
            { answer: 'yes' },
            as.admin,
          )
        ).status,
      ).toBe(200);
    }
    for (const done of [...waits, other]) expect((await done).body.status).toBe('answered');
  });
});
