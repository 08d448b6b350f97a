import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { type StoreKind, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// A text that matches more items than the ranked window holds (five here), or is found in a
// twentieth of its newest items (one, here), is ranked among the newest five items indexed; older
// matches follow, newest first. Paging crosses from the ranked
// matches to the older ones without losing or repeating an item, on both stores alike.

const stores = await storesUnderTest();
const answers: Partial<Record<StoreKind, string[][]>> = {};

/** Submitted oldest first: the label, the description and a comment. */
const ITEMS: [string, string, string | null][] = [
  ['old-best', 'Invoice invoice invoice for the ledger, quarterly', null],
  ['old-1', 'Check the toner', 'the invoice came'],
  ['old-2', 'Invoice from the printer vendor', null],
  ['old-3', 'Call the bank', 'invoice is late'],
  ['old-4', 'Order paper', 'quarterly invoice'],
  ['new-1', 'Plan the offsite', 'invoice for the venue'],
  ['new-2', 'Invoice invoice for the venue, paid', null],
  ['new-3', 'Renew the domain', 'invoice attached'],
  ['new-4', 'Badge for the visitor', 'a note'],
  ['new-5', 'Fix the door', 'invoice of the locksmith, for the ledger'],
];

describe.each(stores)('the ranked window on %s', (kind) => {
  let t: TestApp;
  const labelOf = new Map<string, string>();

  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { searchRankedWindow: 5 });
    for (const [label, description, comment] of ITEMS) {
      const created = await call(t.app, 'POST', '/work', {
        type: 'ops',
        description,
        priority: label === 'old-2' ? 1 : 3,
      });
      expect(created.status, created.text).toBe(201);
      labelOf.set(created.body.id, label);
      if (comment !== null) {
        const commented = await call(t.app, 'POST', `/work/${created.body.id}/comments`, { body: comment });
        expect(commented.status, commented.text).toBe(201);
      }
    }
  }, 60_000);
  afterAll(() => t?.close());

  const labels = (body: { item: { id: string } }[]) => body.map((hit) => labelOf.get(hit.item.id) ?? hit.item.id);

  /** Every page of a query, `limit` at a time, following the Link header. */
  async function pages(q: string, limit: number, between: () => Promise<void> = async () => {}): Promise<string[]> {
    const found: string[] = [];
    let url: string | null = `/search?${new URLSearchParams({ q, limit: String(limit) })}`;
    while (url !== null) {
      const page: Awaited<ReturnType<typeof call<any>>> = await call(t.app, 'GET', url);
      expect(page.status, page.text).toBe(200);
      found.push(...labels(page.body));
      // A cursor that moves back would page for ever.
      if (found.length > 60) throw new Error(`paged past every item: ${found.join()}`);
      url = (page.headers.link as string | undefined)?.match(/<([^>]+)>; rel="next"/)?.[1] ?? null;
      await between();
    }
    return found;
  }

  it('ranks the newest five matches, then gives the older ones newest first', async () => {
    const found = await pages('invoice', 100);
    // Nine match; the five newest items indexed are new-1 to new-5, and new-4 does not match.
    expect(found[0]).toBe('new-2');
    expect(new Set(found.slice(0, 4))).toEqual(new Set(['new-1', 'new-2', 'new-3', 'new-5']));
    expect(found.slice(4)).toEqual(['old-4', 'old-3', 'old-2', 'old-1', 'old-best']);
    (answers[kind] ??= []).push([...found.slice(0, 4)].sort(), found.slice(4));
  });

  it('ranks every match of a text that matches no more than the window holds', async () => {
    // quarterly: old-best's description outranks the newer comments.
    const found = await pages('quarterly', 100);
    expect(found).toEqual(['old-best', 'old-4']);
    (answers[kind] ??= []).push(found);
  });

  it('ranks a text found among the newest items in the window, however few its matches', async () => {
    // ledger: old-best's description would outrank new-5's comment, ranked whole.
    const found = await pages('ledger', 100);
    expect(found).toEqual(['new-5', 'old-best']);
    (answers[kind] ??= []).push(found);
  });

  it('pages across the ranked and the older matches, in the same order, as items arrive', async () => {
    const whole = await pages('invoice', 100);
    let added = 0;
    const paged = await pages('invoice', 2, async () => {
      added += 1;
      const created = await call(t.app, 'POST', '/work', { type: 'ops', description: `Invoice ${added} arrived late` });
      labelOf.set(created.body.id, `late-${added}`);
    });
    const before = paged.filter((label) => !label.startsWith('late-'));
    expect(before).toEqual(whole);
    expect(new Set(paged).size).toBe(paged.length);
  });

  it('applies filters to the older matches too', async () => {
    const found = await pages('invoice priority:1', 100);
    expect(found).toEqual(['old-2']);
  });

  it('refuses a cursor whose window is not a place', async () => {
    const cursor = Buffer.from(
      JSON.stringify([
        'relevance',
        0,
        '2026-11-01T00:00:00.000Z',
        '00000000-0000-4000-8000-000000000001',
        -1,
        10,
        0,
        null,
      ]),
    ).toString('base64url');
    const answer = await call(t.app, 'GET', `/search?q=invoice&cursor=${cursor}`);
    expect(answer.status).toBe(422);
    expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
  });
});

describe('the ranked window on both stores', () => {
  it.runIf(stores.length === 2)('gives the same answers', () => {
    expect(answers.postgres).toEqual(answers.sqlite);
  });
});
