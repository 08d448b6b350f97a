import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../src/shared/db/group-commit.js';

describe('group commit on a real SQLite file', () => {
  let folder: string;
  let kysely: Kysely<any>;
  let statements: string[];

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agentdesk-group-'));
    const raw = new BetterSqlite3(join(folder, 'db.sqlite'));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = FULL');
    statements = [];
    kysely = new Kysely({
      dialect: new SqliteDialect({ database: raw }),
      log: (event) => void statements.push(event.query.sql),
    });
    await sql`create table notes (id integer primary key, body text not null unique)`.execute(kysely);
    statements = [];
  });
  afterEach(async () => {
    await kysely.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  const commits = () => statements.filter((text) => /^commit/i.test(text)).length;

  it('transactions that arrive together share one commit, and each gets its own result', async () => {
    // No time bound here: how many fit in 10 ms depends on the machine (see the next test).
    const run = createGroupCommit(kysely, { batchMs: Number.POSITIVE_INFINITY });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        run(async (trx) => {
          await trx
            .insertInto('notes')
            .values({ body: `note ${i}` })
            .execute();
          return i * 2;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
    expect(commits()).toBe(1);
    const rows = await kysely
      .selectFrom('notes')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(50);
  });

  it('a failing transaction is rolled back alone and gets its own error', async () => {
    const run = createGroupCommit(kysely);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        run(async (trx) => {
          await trx
            .insertInto('notes')
            .values({ body: `note ${i}` })
            .execute();
          if (i === 4) {
            await trx.insertInto('notes').values({ body: 'half-written' }).execute();
            throw new Error('refused');
          }
          if (i === 7) await trx.insertInto('notes').values({ body: 'note 1' }).execute(); // unique violation
          return i;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(
      Array.from({ length: 10 }, (_, i) => (i === 4 || i === 7 ? 'rejected' : 'fulfilled')),
    );
    expect((outcomes[4] as PromiseRejectedResult).reason.message).toBe('refused');
    const bodies = (await kysely.selectFrom('notes').select('body').orderBy('id').execute()).map((r) => r.body);
    expect(bodies).toEqual([0, 1, 2, 3, 5, 6, 8, 9].map((i) => `note ${i}`));
  });

  it('later transactions see the writes of earlier ones in the same batch, in order', async () => {
    const run = createGroupCommit(kysely);
    const seen = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        run(async (trx) => {
          await trx
            .insertInto('notes')
            .values({ body: `n${i}` })
            .execute();
          const { n } = await trx
            .selectFrom('notes')
            .select(sql<number>`count(*)`.as('n'))
            .executeTakeFirstOrThrow();
          return Number(n);
        }),
      ),
    );
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('a batch ends after 10 ms (the default): the rest commit in the next one, after timers have run', async () => {
    const run = createGroupCommit(kysely);
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    let timerRanAfter = -1;
    let finished = 0;
    // 20 transactions of 4 ms each: one batch would hold the loop (and the write lock) 80 ms.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        run(async (trx) => {
          // Set from inside the first batch, so it can only run once a batch gives the loop back
          // (set before the first batch, a slow machine could run it before any batch began).
          if (i === 0) setTimeout(() => (timerRanAfter = finished), 0);
          await trx
            .insertInto('notes')
            .values({ body: `slow ${i}` })
            .execute();
          spin(4);
          finished += 1;
          return i;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(commits()).toBeGreaterThanOrEqual(4);
    expect(timerRanAfter).toBeGreaterThan(0);
    expect(timerRanAfter).toBeLessThan(20);
    const rows = await kysely
      .selectFrom('notes')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(20);
  });

  it('nothing resolves before the commit: a failed commit fails every member', async () => {
    const run = createGroupCommit(kysely);
    // A deferred constraint violation surfaces only at COMMIT, failing the whole batch.
    await sql`create table parents (id integer primary key)`.execute(kysely);
    await sql`create table children (id integer primary key, parent integer references parents(id) deferrable initially deferred)`.execute(
      kysely,
    );
    await sql`pragma foreign_keys = on`.execute(kysely);
    const outcomes = await Promise.allSettled([
      run(async (trx) => trx.insertInto('notes').values({ body: 'ok' }).execute()),
      run(async (trx) => trx.insertInto('children').values({ id: 1, parent: 99 }).execute()),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await kysely.selectFrom('notes').selectAll().execute()).toEqual([]);
  });
});
