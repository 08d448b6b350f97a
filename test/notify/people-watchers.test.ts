import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recipientsFor } from '../../src/notify/index.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type JsonResponse, call } from '../support/http.js';

// Who is told, on both stores: watchers on projects and items (set by POST and PATCH, shown on
// their views), the people a question names, and the one function that works out the recipients
// of a question or a review from them.

const problem = (response: JsonResponse, status: number) => {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
};
const names = (count: number) => Array.from({ length: count }, (_, i) => `person-${i}`);

describe.each(await storesUnderTest())('watchers and recipients on %s', (kind) => {
  let t: TestApp;
  const admin = { 'x-user': 'root' };
  const as = (name: string) => ({ 'x-user': name });

  beforeAll(async () => {
    t = await startWorkApp(kind);
    for (const name of ['ann', 'bob', 'cy', 'dee', 'eve', 'ada']) {
      const made = await call(
        t.app,
        'PUT',
        `/people/${name}`,
        { email: `${name}@example.org`, notify: 'immediate' },
        admin,
      );
      expect(made.status, made.text).toBe(201);
    }
  });
  afterAll(() => t?.close());

  it('a project keeps watchers, answer_within_s and escalate_to through POST, PATCH and GET', async () => {
    const plain = await call(t.app, 'POST', '/projects', { name: `plain-${kind}` }, admin);
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body).toMatchObject({ watchers: [], answer_within_s: null, escalate_to: [] });

    const made = await call(
      t.app,
      'POST',
      '/projects',
      { name: `watched-${kind}`, watchers: ['bob', 'ann'], answer_within_s: 3600, escalate_to: ['cy'] },
      admin,
    );
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ watchers: ['bob', 'ann'], answer_within_s: 3600, escalate_to: ['cy'] });
    const id = made.body.id as string;

    const changed = await call(t.app, 'PATCH', `/projects/${id}`, { watchers: ['dee'], answer_within_s: null }, admin);
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ watchers: ['dee'], answer_within_s: null, escalate_to: ['cy'] });
    const cleared = await call(t.app, 'PATCH', `/projects/${id}`, { escalate_to: [] }, admin);
    expect(cleared.body).toMatchObject({ watchers: ['dee'], escalate_to: [] });
    expect((await call(t.app, 'GET', `/projects/${id}`, undefined, admin)).body).toEqual(cleared.body);

    problem(await call(t.app, 'POST', '/projects', { name: 'x', watchers: names(51) }, admin), 422);
    problem(await call(t.app, 'POST', '/projects', { name: 'x', watchers: ['ann', 'ann'] }, admin), 422);
    problem(await call(t.app, 'POST', '/projects', { name: 'x', watchers: ['not a name'] }, admin), 422);
    problem(await call(t.app, 'PATCH', `/projects/${id}`, { escalate_to: names(51) }, admin), 422);
    problem(await call(t.app, 'PATCH', `/projects/${id}`, { answer_within_s: 59 }, admin), 422);
    problem(await call(t.app, 'PATCH', `/projects/${id}`, { answer_within_s: 1.5 }, admin), 422);
    expect((await call(t.app, 'POST', '/projects', { name: `fifty-${kind}`, watchers: names(50) }, admin)).status).toBe(
      201,
    );
  });

  it('an item keeps its watchers through POST, PATCH and GET', async () => {
    const plain = await call(t.app, 'POST', '/work', { type: 'w', description: 'no watchers' }, admin);
    expect(plain.body.watchers).toEqual([]);
    const made = await call(t.app, 'POST', '/work', { type: 'w', description: 'watched', watchers: ['eve'] }, admin);
    expect(made.status, made.text).toBe(201);
    expect(made.body.watchers).toEqual(['eve']);
    const id = made.body.id as string;
    const changed = await call(t.app, 'PATCH', `/work/${id}`, { watchers: ['ann', 'bob'] }, admin);
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.watchers).toEqual(['ann', 'bob']);
    expect((await call(t.app, 'GET', `/work/${id}`, undefined, admin)).body.watchers).toEqual(['ann', 'bob']);
    expect((await call(t.app, 'PATCH', `/work/${id}`, { watchers: [] }, admin)).body.watchers).toEqual([]);
    const history = await call(t.app, 'GET', `/work/${id}/history`, undefined, admin);
    expect(history.status, history.text).toBe(200);
    expect(
      history.body.map((entry: { changes: Record<string, unknown> }) => entry.changes.watchers).filter(Boolean),
    ).toEqual([
      { from: ['eve'], to: ['ann', 'bob'] },
      { from: ['ann', 'bob'], to: [] },
    ]);
    problem(await call(t.app, 'POST', '/work', { type: 'w', description: 'd', watchers: names(51) }, admin), 422);
    problem(await call(t.app, 'PATCH', `/work/${id}`, { watchers: ['eve', 'eve'] }, admin), 422);
  });

  it('a question keeps the people it names as `to`; without them `to` is null', async () => {
    const item = await call(t.app, 'POST', '/work', { type: 'q', description: 'ask', agent: 'ada' }, admin);
    const id = item.body.id as string;
    problem(await call(t.app, 'POST', `/work/${id}/questions`, { question: 'which?', to: names(11) }, as('ada')), 422);
    problem(await call(t.app, 'POST', `/work/${id}/questions`, { question: 'which?', to: [] }, as('ada')), 422);
    problem(await call(t.app, 'POST', `/work/${id}/questions`, { question: 'which?', to: ['a b'] }, as('ada')), 422);
    const asked = await call(
      t.app,
      'POST',
      `/work/${id}/questions`,
      { question: 'which?', to: ['cy', 'ann'] },
      as('ada'),
    );
    expect(asked.status, asked.text).toBe(201);
    expect(asked.body.to).toEqual(['cy', 'ann']);
    const listed = await call(t.app, 'GET', `/work/${id}/questions`, undefined, admin);
    expect(listed.body[0].to).toEqual(['cy', 'ann']);
    const inbox = await call(t.app, 'GET', '/questions', undefined, admin);
    expect(inbox.body.find((q: { id: string }) => q.id === asked.body.id).to).toEqual(['cy', 'ann']);
    await call(t.app, 'POST', `/work/${id}/questions/${asked.body.id}/answer`, { answer: 'that one' }, admin);
    const again = await call(t.app, 'POST', `/work/${id}/questions`, { question: 'and now?' }, as('ada'));
    expect(again.status, again.text).toBe(201);
    expect(again.body.to).toBeNull();
  });

  describe('recipientsFor', () => {
    const profile = (name: string) => ({
      name,
      email: `${name}@example.org`,
      notify: 'immediate' as const,
      digest_at: null,
      tz: null,
    });
    const question = (over: Partial<{ to_people: string | null; asked_by: string; kind: 'question' | 'review' }>) => ({
      to_people: null,
      asked_by: 'ada',
      kind: 'question' as const,
      ...over,
    });

    it('the named people when `to` is given, only those with a profile, never the asker', async () => {
      const item = { watchers: JSON.stringify(['bob']), created_by: 'dee' };
      const told = await recipientsFor(
        t.database.kysely,
        item,
        { watchers: JSON.stringify(['eve']) },
        question({ to_people: JSON.stringify(['cy', 'nobody', 'ada', 'ann']) }),
      );
      expect(told).toEqual([profile('ann'), profile('cy')]);
    });

    it("`@creator` among the named people is the item's creator, told once", async () => {
      const item = { watchers: JSON.stringify(['bob']), created_by: 'dee' };
      const to = (...names: string[]) => question({ to_people: JSON.stringify(names) });
      expect(await recipientsFor(t.database.kysely, item, null, to('@creator'))).toEqual([profile('dee')]);
      expect(await recipientsFor(t.database.kysely, item, null, to('dee', '@creator', 'ann'))).toEqual(
        ['ann', 'dee'].map(profile),
      );
      // The creator who asked is not told, as any asker.
      expect(await recipientsFor(t.database.kysely, item, null, { ...to('@creator'), asked_by: 'dee' })).toEqual([]);
    });

    it("else the item's and the project's watchers and the creator with a profile, each once, by name", async () => {
      const item = { watchers: JSON.stringify(['eve', 'bob', 'ghost']), created_by: 'cy' };
      const project = { watchers: JSON.stringify(['bob', 'ann']) };
      expect(await recipientsFor(t.database.kysely, item, project, question({}))).toEqual(
        ['ann', 'bob', 'cy', 'eve'].map(profile),
      );
      // A review goes to the same people; the creator without a profile is not told.
      expect(
        await recipientsFor(t.database.kysely, { ...item, created_by: 'someone' }, null, question({ kind: 'review' })),
      ).toEqual(['bob', 'eve'].map(profile));
      // The asker is never told, even as a watcher or the creator.
      expect(
        await recipientsFor(t.database.kysely, { ...item, created_by: 'eve' }, project, question({ asked_by: 'eve' })),
      ).toEqual(['ann', 'bob'].map(profile));
      expect(await recipientsFor(t.database.kysely, { watchers: null, created_by: 'ada' }, null, question({}))).toEqual(
        [],
      );
    });

    it('reads inside the transaction it is given', async () => {
      const told = await t.database.transaction(async (trx) => {
        await trx
          .insertInto('people')
          .values({ ...profile('fay'), created_at: new Date().toISOString(), updated_at: new Date().toISOString() })
          .execute();
        return recipientsFor(trx, { watchers: JSON.stringify(['fay']), created_by: 'root' }, null, question({}));
      });
      expect(told).toEqual([profile('fay')]);
    });

    it('is worked out from an item, its project and a question as the desk stores them', async () => {
      const project = await call(t.app, 'POST', '/projects', { name: `told-${kind}`, watchers: ['ann'] }, admin);
      const item = await call(
        t.app,
        'POST',
        '/work',
        { type: 'r', description: 'told', agent: 'ada', project_id: project.body.id, watchers: ['bob'] },
        as('dee'),
      );
      const asked = await call(t.app, 'POST', `/work/${item.body.id}/questions`, { question: 'ok?' }, as('ada'));
      expect(asked.status, asked.text).toBe(201);
      const db = t.database.kysely;
      const itemRow = await db
        .selectFrom('work_items')
        .selectAll()
        .where('id', '=', item.body.id)
        .executeTakeFirstOrThrow();
      const projectRow = await db
        .selectFrom('projects')
        .selectAll()
        .where('id', '=', project.body.id)
        .executeTakeFirst();
      const questionRow = await db
        .selectFrom('work_questions')
        .selectAll()
        .where('id', '=', asked.body.id)
        .executeTakeFirstOrThrow();
      expect(await recipientsFor(db, itemRow, projectRow ?? null, questionRow)).toEqual(
        ['ann', 'bob', 'dee'].map(profile),
      );
    });
  });
});
