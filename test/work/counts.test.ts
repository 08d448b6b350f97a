import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// GET /work/counts with no filter but a type reads the counts writers keep (src/work/stats), not
// every item: after concurrent submits, claims, completions, cancels and deletes they must equal
// a count of the rows, on both stores; other filters still count rows.

const TYPES = ['count-a', 'count-b', 'count-c'];

describe.each(await storesUnderTest())('GET /work/counts on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t?.close());

  const rowCounts = async (type?: string) => {
    let query = t.database.kysely
      .selectFrom('work_items')
      .select(['status', sql<number>`count(*)`.as('n')])
      .groupBy('status');
    if (type) query = query.where('type', '=', type);
    const rows = await query.execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  };
  const withZeros = (counts: Record<string, number>) =>
    Object.fromEntries(
      ['queued', 'dispatched', 'in_progress', 'blocked', 'completed', 'failed', 'cancelled'].map((status) => [
        status,
        counts[status] ?? 0,
      ]),
    );

  it('equal a count of the rows after concurrent changes, unfiltered and by type', async () => {
    const made = await Promise.all(
      Array.from({ length: 45 }, (_, n) =>
        call(t.app, 'POST', '/work', {
          type: TYPES[n % 3],
          description: `count ${n}`,
          agent: n % 5 === 0 ? 'ann' : undefined,
        }),
      ),
    );
    expect(made.every((response) => response.status === 201)).toBe(true);
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, n) => call(t.app, 'POST', '/work/claim', { agent: `bot-${n}`, types: TYPES })),
    );
    const claimed = claims.filter((response) => response.status === 200).map((response) => response.body.id);
    await Promise.all([
      ...claimed
        .slice(0, 6)
        .map((id) => call(t.app, 'PATCH', `/work/${id}`, { status: 'completed', outcome: 'success' })),
      ...made
        .slice(40)
        .map((response) =>
          call(t.app, 'PATCH', `/work/${response.body.id}`, { status: 'cancelled', outcome: 'cancelled' }),
        ),
      ...made.slice(30, 33).map((response) => call(t.app, 'DELETE', `/work/${response.body.id}`)),
    ]);

    const all = await call(t.app, 'GET', '/work/counts');
    expect(all.status, all.text).toBe(200);
    expect(all.body).toEqual(withZeros(await rowCounts()));
    expect(Object.values(all.body as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(42);
    for (const type of TYPES) {
      expect((await call(t.app, 'GET', `/work/counts?type=${type}`)).body).toEqual(withZeros(await rowCounts(type)));
    }
    expect((await call(t.app, 'GET', '/work/counts?type=never-seen')).body).toEqual(withZeros({}));
    // Another filter counts rows: the agent's items.
    const ann = await call(t.app, 'GET', '/work/counts?agent=ann');
    expect(Object.values(ann.body as Record<string, number>).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});
