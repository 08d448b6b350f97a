import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type TestDatabase,
  createTestDatabase,
  openTestDatabase,
  postgresBaseUrl,
  storesUnderTest,
} from '../support/databases.js';

// Found through the CLI: `agentdesk token create` refused on a PostgreSQL database
// took 30 s to exit. The migrations use the pool directly and Kysely ends the pool only if it
// ran a query itself, so close() left the migration's idle connection open until the pool's
// idle timeout. close() must end every connection, whatever ran before it.

const stores = await storesUnderTest();

describe.skipIf(!stores.includes('postgres'))('PostgreSQL: close()', () => {
  let testDatabase: TestDatabase;
  afterAll(async () => testDatabase?.destroy());

  it('ends every connection of the pool, even when only the migrations ran', async () => {
    testDatabase = await createTestDatabase('postgres');
    const database = await openTestDatabase(testDatabase);
    const pool = database.pool as pg.Pool;
    expect(pool.totalCount).toBeGreaterThan(0);
    await database.close();
    expect(pool.totalCount).toBe(0);
    // And the server agrees: no session of this database's application_name is left.
    const observer = new pg.Client({ connectionString: postgresBaseUrl() });
    await observer.connect();
    try {
      const sessions = async () =>
        Number(
          (
            await observer.query('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [
              testDatabase.schema,
            ])
          ).rows[0].n,
        );
      await expect.poll(sessions, { timeout: 5_000 }).toBe(0);
    } finally {
      await observer.end();
    }
  });
});
