import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Comments reach the index while other writes rebuild the same item's document, and no word of
// one is lost. On PostgreSQL a new comment adds its own words to the document instead of
// rebuilding it, weighted as a rebuild would weigh them.

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

describe.each(await storesUnderTest())('comments in the index on %s', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startWorkApp(kind);
  }, 60_000);
  afterAll(() => t?.close());

  const found = async (q: string) => {
    const answer = await call(t.app, 'GET', `/search?${new URLSearchParams({ q, limit: '100' })}`);
    expect(answer.status, answer.text).toBe(200);
    return (answer.body as { item: { id: string } }[]).map((hit) => hit.item.id);
  };

  it('keeps every comment written while notes change, for several rounds', async () => {
    for (let round = 0; round < 4; round += 1) {
      const created = await call(t.app, 'POST', '/work', { type: 'ops', description: `Round ${round} of the race` });
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as string;
      const writes = await Promise.all([
        ...WORDS.map((word) =>
          call(t.app, 'POST', `/work/${id}/comments`, { body: `${word}${round}zz came up`, kind: 'progress' }),
        ),
        ...[1, 2, 3].map((n) => call(t.app, 'PATCH', `/work/${id}`, { notes: `notes version ${n}` })),
      ]);
      for (const write of writes) expect(write.status, write.text).toBeLessThan(300);
      for (const word of WORDS) expect(await found(`${word}${round}zz`), `${word}${round}zz`).toEqual([id]);
    }
  });

  it.runIf(kind === 'postgres')('weighs an added comment as a rebuild would', async () => {
    const created = await call(t.app, 'POST', '/work', { type: 'ops', description: 'Weigh the comments' });
    const id = created.body.id as string;
    await call(t.app, 'POST', `/work/${id}/comments`, { body: 'a note on kilowatts' });
    await call(t.app, 'POST', `/work/${id}/comments`, { body: 'progress with megawatts', kind: 'progress' });
    await sql`INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
        VALUES (gen_random_uuid(), ${id}, 'mailer', 'intake', 'email', 'mail about gigawatts', '[]', now())`.execute(
      t.database.kysely,
    );
    const lexemes = async (of: 'kept' | 'rebuilt') => {
      const doc = of === 'kept' ? sql`s.doc` : sql`search_document(s.item_id)`;
      const { rows } = await sql<{ lexeme: string; weights: string[] }>`SELECT lexeme, weights
          FROM work_search s, unnest(${doc}) WHERE s.item_id = ${id} ORDER BY lexeme`.execute(t.database.kysely);
      return rows.map((row) => `${row.lexeme}:${[...new Set(row.weights)].sort().join('')}`);
    };
    const kept = await lexemes('kept');
    expect(kept).toEqual(expect.arrayContaining(['kilowatts:C', 'megawatts:C', 'gigawatts:D']));
    expect(kept).toEqual(await lexemes('rebuilt'));
    expect(await found('gigawatts')).toEqual([id]);
  });
});
