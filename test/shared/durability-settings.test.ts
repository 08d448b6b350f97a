import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// Durability, proven rather than assumed: the settings that make a commit durable,
// read back from the service's own connections (the Database that main opens), not assumed from
// the code that sets them. The fsync count of the running process is test/process/durability.

const stores = await storesUnderTest();

describe('SQLite: the connection the service writes through', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  afterAll(async () => {
    await database?.close();
    await testDatabase?.destroy();
  });

  // NORMAL, so a COMMIT only write()s the WAL; durability comes from the fdatasync of
  // the WAL that every answer waits for (src/shared/db/wal-sync.ts, counted under strace by
  // test/process/durability), and checkpoints run on their own thread, not at a commit.
  // temp_store = MEMORY (2): a savepoint's sub-journal stays in memory instead of spilling each
  // submit's pages to a temporary file on the event loop (database.ts).
  it('is in WAL mode with synchronous=NORMAL (1), foreign keys on, sub-journals in memory, and no auto-checkpoint once its checkpointer runs', async () => {
    testDatabase = await createTestDatabase('sqlite');
    database = await openTestDatabase(testDatabase);
    const pragma = async (name: string) =>
      Object.values((await sql.raw(`PRAGMA ${name}`).execute(database.kysely)).rows[0] as object)[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(1);
    expect(await pragma('foreign_keys')).toBe(1);
    expect(await pragma('temp_store')).toBe(2);
    await expect.poll(() => pragma('wal_autocheckpoint'), { timeout: 10_000 }).toBe(0);
  });
});

describe.skipIf(!stores.includes('postgres'))('PostgreSQL: every session of the service pool', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  afterAll(async () => {
    await database?.close();
    await testDatabase?.destroy();
  });

  it('commits with synchronous_commit on, even when the URL or the server default turns it off', async () => {
    testDatabase = await createTestDatabase('postgres');
    // What an operator could set for the role, the database or the connection: here, the URL.
    const url = new URL(testDatabase.config.url);
    url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} -c synchronous_commit=off`.trim());
    database = await openTestDatabase({ ...testDatabase, config: { ...testDatabase.config, url: url.toString() } });
    const pool = database.pool as pg.Pool;

    // Through the pool, as the service's queries go: hold every connection it may open at once.
    const clients = await Promise.all(Array.from({ length: testDatabase.config.poolSize }, () => pool.connect()));
    try {
      const settings = await Promise.all(
        clients.map(
          async (client) =>
            (
              await client.query<{ setting: string }>('SELECT setting FROM pg_settings WHERE name = $1', [
                'synchronous_commit',
              ])
            ).rows[0]?.setting,
        ),
      );
      expect(settings).toEqual(Array(testDatabase.config.poolSize).fill('on'));
    } finally {
      for (const client of clients) client.release();
    }
    // And through Kysely, the way every store query runs.
    const { rows } = await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(database.kysely);
    expect(rows[0]?.synchronous_commit).toBe('on');
  });
});
