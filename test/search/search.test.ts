import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { type StoreKind, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { corpusQueries } from './corpus.js';
import { loadCorpus } from './support.js';

// Search through HTTP on both stores: the labelled corpus's queries answer with their expected
// items first and the same answers on each store; highlights, paging and what a role may see.

const stores = await storesUnderTest();
const answers: Partial<Record<StoreKind, Record<string, string[]>>> = {};

describe.each(stores)('search on %s', (kind) => {
  let t: TestApp;
  let ids: Record<string, string>;
  let labelOf: Map<string, string>;
  const clock = createTestClock(Date.parse('2026-11-01T08:00:00.000Z'));
  const as = {} as Record<'admin' | 'mia' | 'viewer' | 'ada' | 'intake', Record<string, string>>;

  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV }, { now: clock.now });
    as.admin = bearer(ADMIN_SECRET);
    as.mia = bearer((await mintToken(t.app, { role: 'member', name: 'mia' })).token);
    as.viewer = bearer((await mintToken(t.app, { role: 'viewer', name: 'vera' })).token);
    as.ada = bearer((await mintToken(t.app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token);
    as.intake = bearer((await mintToken(t.app, { role: 'intake', name: 'mailer' })).token);
    ids = await loadCorpus(t, as, clock.advance);
    labelOf = new Map(Object.entries(ids).map(([label, id]) => [id, label]));
  }, 120_000);
  afterAll(() => t?.close());

  const search = (q: string, extra: Record<string, string> = {}, who = as.admin) =>
    call(t.app, 'GET', `/search?${new URLSearchParams({ q, limit: '100', ...extra })}`, undefined, who);

  it('answers each labelled query with its expected items first', async () => {
    const mine: Record<string, string[]> = {};
    for (const { q, first, only } of corpusQueries(ids)) {
      const found = await search(q);
      expect(found.status, `${q}: ${found.text}`).toBe(200);
      const labels = (found.body as { item: { id: string } }[]).map((r) => labelOf.get(r.item.id) ?? r.item.id);
      expect(new Set(labels.slice(0, first.length)), q).toEqual(new Set(first));
      if (only) expect(labels, q).toHaveLength(first.length);
      mine[q.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|^[0-9a-f]{8}$/, '<id>')] = [...labels].sort();
    }
    answers[kind] = mine;
  });

  it('ranks the description above a comment, and says where each matched', async () => {
    const orchid = (await search('orchid')).body;
    expect(orchid.map((r: any) => labelOf.get(r.item.id))).toEqual(['orchid-desc', 'orchid-comment']);
    expect(orchid[0].matched_in).toEqual(['description']);
    expect(orchid[1].matched_in).toEqual(['comment']);
    expect(orchid[1].highlight).toEqual({ field: 'comment', html: 'Someone said the <mark>orchid</mark> looks dry' });
    expect((await search('quarterly')).body[0].matched_in).toEqual(['email']);
    expect((await search('zephyrine')).body[0].matched_in).toEqual(['payload']);
    expect((await search(ids.zephyrine!.slice(0, 8))).body[0].matched_in).toEqual(['id']);
  });

  it('escapes everything in a highlight but its marks', async () => {
    const [hit] = (await search('script alert')).body;
    expect(hit.highlight.html).toBe(
      'The signup form shows &lt;<mark>script</mark>&gt;<mark>alert</mark>(1)&lt;/<mark>script</mark>&gt; &amp; breaks the layout',
    );
  });

  it('pages by relevance and by time without losing or repeating an item', async () => {
    for (const sort of ['relevance', 'newest']) {
      const whole = (await search('prepare priority:<=3', { sort })).body.map((r: any) => r.item.id);
      expect(whole.length).toBeGreaterThan(50);
      expect(whole.length).toBeLessThan(100);
      const paged: string[] = [];
      let url: string | null = `/search?${new URLSearchParams({ q: 'prepare priority:<=3', sort, limit: '7' })}`;
      while (url !== null) {
        const page = await call(t.app, 'GET', url, undefined, as.viewer);
        expect(page.status, page.text).toBe(200);
        paged.push(...page.body.map((r: any) => r.item.id));
        const link = page.headers.link as string | undefined;
        url = link ? (/<([^>]+)>/.exec(link)?.[1] ?? null) : null;
      }
      expect(paged).toEqual(whole);
    }
  });

  it('finds a change as soon as the write is answered, and forgets a deleted item', async () => {
    const created = await call(
      t.app,
      'POST',
      '/work',
      { type: 'ops', description: 'Calibrate the xylophone' },
      as.admin,
    );
    const id = created.body.id as string;
    expect((await search('xylophone')).body.map((r: any) => r.item.id)).toEqual([id]);
    const commented = await call(t.app, 'POST', `/work/${id}/comments`, { body: 'the glockenspiel too' }, as.admin);
    expect(commented.status).toBe(201);
    expect((await search('glockenspiel')).body.map((r: any) => r.item.id)).toEqual([id]);
    const patched = await call(
      t.app,
      'PATCH',
      `/work/${id}`,
      { description: 'Tune the marimba' },
      { ...as.admin, 'if-match': '*' },
    );
    expect(patched.status, patched.text).toBe(200);
    expect((await search('xylophone')).body).toEqual([]);
    expect((await search('marimba glockenspiel')).body.map((r: any) => r.item.id)).toEqual([id]);
    expect((await call(t.app, 'DELETE', `/work/${id}`, undefined, as.admin)).status).toBe(204);
    expect((await search('marimba')).body).toEqual([]);
    expect((await search('glockenspiel')).body).toEqual([]);
  });

  it('finds an item by its whole id or first 8 hex digits, never a word by a group of an id', async () => {
    const submit = async (description: string) => {
      const created = await call(t.app, 'POST', '/work', { type: 'ops', description }, as.admin);
      expect(created.status, created.text).toBe(201);
      return created.body.id as string;
    };
    // A group with a digit is matched as typed, not widened to a stem that other words share.
    let id = await submit('Rotate the badge readers');
    while (!/\d/.test(id.split('-')[1] as string)) id = await submit('Rotate the badge readers');
    const group = id.split('-')[1] as string;
    const other = await submit(`Replace lock ${group} on the east door`);
    const found = async (q: string) => (await search(q)).body.map((r: any) => r.item.id);

    const byGroup = (await search(group)).body as { item: { id: string; description: string }; highlight: unknown }[];
    expect(
      byGroup.map((hit) => hit.item.id),
      JSON.stringify(byGroup.map((hit) => [hit.item.description, hit.highlight])),
    ).toEqual([other]);
    expect(await found(`${id.slice(0, 4)}*`)).not.toContain(id);
    for (const q of [id, id.toUpperCase(), id.replace(/-/g, ''), id.slice(0, 8), `${id.slice(0, 8)} badge`]) {
      expect(await found(q), q).toEqual([id]);
    }
    const [whole] = (await search(id)).body;
    expect(whole.matched_in).toEqual(['id']);
    expect(whole.highlight).toEqual({ field: 'id', html: `<mark>${id}</mark>` });
    const [short] = (await search(id.slice(0, 8))).body;
    expect(short.highlight.html).toBe(`<mark>${id.slice(0, 8)}</mark>${id.slice(8)}`);
    expect(await found(`lock -${id.slice(0, 8)}`)).toEqual([other]);
    expect(await found(`readers -${id}`)).not.toContain(id);
  });

  it('shows a role only what it may GET, and refuses a role that reads nothing', async () => {
    for (const who of [as.viewer, as.ada, as.mia]) {
      const found = await search('invoice', {}, who);
      expect(found.status).toBe(200);
      for (const { item } of found.body) {
        expect((await call(t.app, 'GET', `/work/${item.id}`, undefined, who)).status).toBe(200);
      }
    }
    const refused = await search('invoice', {}, as.intake);
    expect(refused.status).toBe(403);
  });

  it('filters by creation day, and is:needs-me finds the questions a person is told of', async () => {
    const labels = async (q: string, who = as.admin) =>
      (await search(q, {}, who)).body.map((r: any) => labelOf.get(r.item.id) ?? r.item.id).sort();
    expect(await labels('invoices created:2026-11-01')).toEqual(['invoice', 'invoice-fix']);
    expect(await labels('invoices created:>2026-11-01')).toEqual([]);
    expect(await labels('invoices created:>=2026-11-01 created:<2026-11-02')).toEqual(['invoice', 'invoice-fix']);

    // mia created the onboarding item: a question on it is told to her, not to whoever asked.
    const asked = await call(
      t.app,
      'POST',
      `/work/${ids['mia-onboarding']}/questions`,
      { question: 'Which laptop model for the designer?' },
      as.admin,
    );
    expect(asked.status, asked.text).toBe(201);
    expect(await labels('is:needs-me', as.mia)).toEqual(['mia-onboarding']);
    expect(await labels('laptop is:needs-me', as.mia)).toEqual(['mia-onboarding']);
    expect(await labels('is:needs-me', as.admin)).toEqual([]);
    expect(await labels('is:needs-me', as.viewer)).toEqual([]);
    const [hit] = (await search('laptop model', {}, as.mia)).body;
    expect(hit.matched_in).toEqual(['question']);
  });

  it('answers bad input with a 422 problem or a sensible result, never a 500', async () => {
    const cases: [string, number][] = [
      ['"server rack', 200],
      ['"', 422],
      ['x'.repeat(2_000), 422],
      ['the and of', 422],
      ['NEAR(invoice 7731)', 200],
      ['invoice OR refund', 200],
      [':', 422],
      ['*', 422],
      ['invoice\u0000', 422],
      ['-invoice', 422],
      ['status:nonsense', 422],
      ['created:yesterday', 422],
      ['priority:9', 422],
      ['invoice AND NOT refund', 200],
      ['invoice^2 col:description {a b}', 200],
      ['Straße 日本語 Ωmega x² ½', 200],
      ['🙂', 422],
      ['a'.repeat(400), 200],
    ];
    for (const [q, status] of cases) {
      const answer = await search(q);
      expect(answer.status, `${JSON.stringify(q)}: ${answer.text}`).toBe(status);
      if (status === 422) expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect((await call(t.app, 'GET', '/search?q=invoice&cursor=bm90LWEtY3Vyc29y', undefined, as.admin)).status).toBe(
      422,
    );
  });
});

describe('search on both stores', () => {
  it.runIf(stores.length === 2)('gives the same answers', () => {
    expect(answers.postgres).toEqual(answers.sqlite);
  });
});
