import type { Worker } from 'node:worker_threads';
import { type Generated, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/shared/db/database.js';
import type { CheckpointResult } from '../../src/shared/db/sqlite-checkpointer.js';
import { captureLogs } from '../support/apps.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';

/** The table these tests write, not the app's. */
type NotesTable = { notes: { id: Generated<number>; body: string } };

// Checkpoints run on a worker thread of their own (src/shared/db/sqlite-checkpointer.ts),
// the main connection's auto-checkpoint off. Here that thread dies twice (terminated, as a crash
// would end it, once idle and once under writes): the death is logged, the main connection
// auto-checkpoints meanwhile so the WAL cannot grow without bound, writes go on being answered,
// and a new thread takes over and checkpoints the WAL. The flush every answer waits for
// (wal-sync.ts) does not depend on this thread: the strace test (test/process/durability)
// counts it, and test/shared/group-commit-flush shows the answers wait for it.

describe('the SQLite checkpointer thread', () => {
  let testDatabase: TestDatabase | undefined;
  let database: Database | undefined;
  afterAll(async () => {
    await database?.close();
    await testDatabase?.destroy();
  });

  it(
    'dies, is logged, is replaced; meanwhile the writes go on and checkpoint themselves',
    { timeout: 60_000 },
    async () => {
      testDatabase = await createTestDatabase('sqlite');
      const logs = captureLogs('warn');
      const threads: Worker[] = [];
      const results: CheckpointResult[] = [];
      database = await openDatabase(testDatabase.config, {
        logger: logs.logger,
        checkpointer: {
          everyCommits: 5,
          intervalMs: 100,
          restartMs: 1_500,
          onThread: (thread) => threads.push(thread),
          onCheckpoint: (result) => results.push(result),
        },
      });
      const db = database;
      const autoCheckpoint = async () =>
        Number(Object.values((await sql.raw('PRAGMA wal_autocheckpoint').execute(db.kysely)).rows[0] as object)[0]);
      await sql`create table notes (id integer primary key, body text not null)`.execute(db.kysely);
      let written = 0;
      const write = (count: number) =>
        Promise.all(
          Array.from({ length: count }, () =>
            db.transaction((trx) =>
              trx
                .withTables<NotesTable>()
                .insertInto('notes')
                .values({ body: `note ${written++}`.padEnd(2_000, '.') })
                .execute(),
            ),
          ),
        );
      const count = async () =>
        Number((await sql<{ n: number }>`select count(*) as n from notes`.execute(db.kysely)).rows[0]!.n);
      /** A checkpoint from now on that copied back everything in the WAL. */
      const fullCheckpoint = async () => {
        const from = results.length;
        await expect
          .poll(() => results.slice(from).some((result) => result.log > 0 && result.checkpointed === result.log), {
            timeout: 15_000,
          })
          .toBe(true);
      };

      // The first thread is up: the main connection does not checkpoint at its commits.
      await expect.poll(autoCheckpoint, { timeout: 15_000 }).toBe(0);
      await write(50);
      await fullCheckpoint();

      for (const death of [1, 2]) {
        await threads.at(-1)!.terminate();
        expect(logs.text()).toContain('SQLite checkpointer thread died');
        // Until the next thread is up, the commits checkpoint as SQLite does by default.
        expect(await autoCheckpoint()).toBe(1_000);
        await write(100);
        expect(await count()).toBe(written);
        await expect.poll(() => threads.length, { timeout: 15_000 }).toBe(death + 1);
        await expect.poll(autoCheckpoint, { timeout: 15_000 }).toBe(0);
        await write(50);
        await fullCheckpoint();
      }
      expect(logs.text().match(/SQLite checkpointer thread died/g)?.length).toBe(2);
      expect(await count()).toBe(written);
    },
  );

  it('stops with the database, logging nothing', { timeout: 30_000 }, async () => {
    const scratch = await createTestDatabase('sqlite');
    const logs = captureLogs('warn');
    const threads: Worker[] = [];
    const opened = await openDatabase(scratch.config, {
      logger: logs.logger,
      checkpointer: { onThread: (thread) => threads.push(thread) },
    });
    const exited = new Promise((resolve) => threads[0]!.once('exit', resolve));
    await opened.close();
    await exited;
    expect(threads.length).toBe(1);
    expect(logs.lines).toEqual([]);
    await scratch.destroy();
  });
});
