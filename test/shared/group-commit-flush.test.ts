import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGroupCommit } from '../../src/shared/db/group-commit.js';
import { DurableSqliteDialect } from '../../src/shared/db/sqlite-driver.js';
import { type WalSync, createSerialSync } from '../../src/shared/db/wal-sync.js';

// The commit's fsync runs off the event loop (src/shared/db/wal-sync.ts), and nobody may
// hear back before a flush that BEGAN AFTER their COMMIT returned has finished. Here the flush is
// held by the test: it sees the answers wait for it, the next batch's statements and COMMIT run
// meanwhile (the pipelining), and the order of events proves each answer's flush began after
// its commit. A real SQLite file at synchronous = NORMAL, as the service runs it.

/** Every callback already due has run: nothing here waits on I/O, so an early answer would show. */
const settled = () => new Promise((resume) => setImmediate(resume));

interface HeldFlush {
  release: () => void;
  fail: (error: Error) => void;
}

describe('group commit answers only after a flush that began after its COMMIT', () => {
  let folder: string;
  let kysely: Kysely<any>;
  let events: string[];
  let held: HeldFlush[];
  let sync: WalSync;

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'agentdesk-flush-'));
    const raw = new BetterSqlite3(join(folder, 'db.sqlite'));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.exec('create table notes (id integer primary key, body text not null unique)');
    events = [];
    held = [];
    sync = createSerialSync(
      () =>
        new Promise<void>((resolve, reject) => {
          const index = held.length;
          events.push(`flush ${index} began`);
          held.push({
            release: () => {
              events.push(`flush ${index} ended`);
              resolve();
            },
            fail: reject,
          });
        }),
    );
    const prepare = (text: string) => raw.prepare(text);
    kysely = new Kysely({
      dialect: new DurableSqliteDialect({ database: raw, prepare, durable: () => sync.durable() }),
      // Logged once the statement has returned: for COMMIT, once the commit is done.
      log: (event) => {
        if (/^commit/i.test(event.query.sql)) events.push('commit');
      },
    });
  });
  afterEach(async () => {
    for (const flush of held) flush.release();
    await kysely.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  const until = (check: () => boolean) => expect.poll(check, { timeout: 5_000, interval: 5 }).toBe(true);
  const notes = async () =>
    (await sql<{ body: string }>`select body from notes order by id`.execute(kysely)).rows.map((row) => row.body);

  it('holds each answer until its flush, while the next batch runs and commits', async () => {
    const run = createGroupCommit(kysely, { durable: () => sync.durable() });
    const answered: string[] = [];
    const write = (body: string) =>
      run(async (trx) => {
        await trx.insertInto('notes').values({ body }).execute();
        return body;
      }).then((value) => {
        events.push(`answered ${value}`);
        answered.push(value);
      });

    const first = write('a');
    await until(() => held.length === 1);
    expect(events).toEqual(['commit', 'flush 0 began']);

    // The flush of `a` is held: `b` runs its statements and commits all the same.
    const second = write('b');
    await until(() => events.filter((event) => event === 'commit').length === 2);
    expect(await notes()).toEqual(['a', 'b']);
    await settled();
    expect(answered).toEqual([]);
    // One flush at a time: the second waits for the first.
    expect(held.length).toBe(1);

    held[0]!.release();
    await first;
    // `a` is answered; `b` committed after flush 0 began, so flush 0 does not cover it.
    expect(answered).toEqual(['a']);
    await until(() => held.length === 2);
    await settled();
    expect(answered).toEqual(['a']);

    held[1]!.release();
    await second;
    expect(answered).toEqual(['a', 'b']);
    // Each answer after the end of a flush that began after its own commit.
    const at = (event: string) => events.indexOf(event);
    const secondCommit = events.lastIndexOf('commit');
    expect(at('commit')).toBeLessThan(at('flush 0 began'));
    expect(at('flush 0 ended')).toBeLessThan(at('answered a'));
    expect(secondCommit).toBeLessThan(at('flush 1 began'));
    expect(secondCommit).toBeGreaterThan(at('flush 0 began'));
    expect(at('flush 1 ended')).toBeLessThan(at('answered b'));
  });

  it("keeps a failed unit's answer for the flush too, and after a failed flush acknowledges nothing", async () => {
    const run = createGroupCommit(kysely, { durable: () => sync.durable(), batchMs: Number.POSITIVE_INFINITY });
    const outcomes: string[] = [];
    const ok = run((trx) => trx.insertInto('notes').values({ body: 'x' }).execute()).then(() => outcomes.push('ok'));
    const refused = run((trx) => trx.insertInto('notes').values({ body: 'x' }).execute()).catch(() =>
      outcomes.push('refused'),
    );
    await until(() => held.length === 1);
    await settled();
    // The refusal (a unique key) was decided by `ok`'s write, not yet on disk: it waits as well.
    expect(outcomes).toEqual([]);
    held[0]!.release();
    await Promise.all([ok, refused]);
    expect(outcomes).toEqual(['ok', 'refused']);

    const lost = run((trx) => trx.insertInto('notes').values({ body: 'y' }).execute());
    await until(() => held.length === 2);
    held[1]!.fail(new Error('EIO'));
    await expect(lost).rejects.toThrow('EIO');
    // After a failed fsync a later one proves nothing (the kernel may have dropped the pages):
    // nothing is acknowledged any more, without trying another flush.
    expect(sync.failed()?.message).toBe('EIO');
    await expect(run((trx) => trx.insertInto('notes').values({ body: 'z' }).execute())).rejects.toThrow('EIO');
    await expect(kysely.insertInto('notes').values({ body: 'w' }).execute()).rejects.toThrow('EIO');
    expect(held.length).toBe(2);
  });

  it('a write outside any transaction waits for its flush, and gives the connection back meanwhile', async () => {
    let written = false;
    const write = kysely
      .insertInto('notes')
      .values({ body: 'alone' })
      .execute()
      .then(() => {
        written = true;
      });
    await until(() => held.length === 1);
    // The connection is free while the flush runs: a read (and the write's own row) goes through.
    expect(await notes()).toEqual(['alone']);
    expect(written).toBe(false);
    held[0]!.release();
    await write;
    expect(written).toBe(true);
    // Reads do not wait for any flush.
    await notes();
    expect(held.length).toBe(1);
  });
});
