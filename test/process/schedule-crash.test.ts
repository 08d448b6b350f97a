import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { waitFor } from '../support/mail.js';
import { killAllServers, startWorkServer } from '../support/processes.js';

// kill -9 of the firing instance mid-commit on PostgreSQL: a lock the test holds on work_items
// stops the transaction after its occurrence's row, at the item's insert. After the restart and
// the dead pass's lease, the occurrence is made once; nothing of the killed attempt remains.

const stores = await storesUnderTest();
const MINUTE = 60_000;

describe.skipIf(!stores.includes('postgres'))('kill -9 of the firing instance mid-commit', () => {
  let database: TestDatabase | undefined;
  const clients: pg.Client[] = [];
  afterAll(async () => {
    await killAllServers();
    for (const client of clients) await client.end().catch(() => undefined);
    await database?.destroy();
  });

  it('after the restart the occurrence is made once, neither lost nor doubled', async () => {
    database = await createTestDatabase('postgres');
    const env = { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn' };
    const first = await startWorkServer({ env, startTimeoutMs: 60_000 });
    // The minute that began last, and a window that ends just after it: one occurrence only.
    const due = new Date(Math.floor(Date.now() / MINUTE) * MINUTE);
    const created = await fetchJson(first.url, 'POST', '/schedules', {
      name: 'crash',
      cron: '* * * * *',
      tz: 'UTC',
      missed: 'all',
      ends_at: new Date(due.getTime() + 30_000).toISOString(),
      item: { type: 'crash_tick', description: 'made once' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;

    const sql = new pg.Client({ connectionString: database.config.url });
    clients.push(sql);
    await sql.connect();
    await sql.query('BEGIN');
    await sql.query('LOCK TABLE work_items IN SHARE ROW EXCLUSIVE MODE');
    // Due now: the next pass (every 15 s) claims it, writes the occurrence, and waits on the lock.
    const other = new pg.Client({ connectionString: database.config.url });
    clients.push(other);
    await other.connect();
    await other.query('UPDATE schedules SET next_run_at = $1 WHERE id = $2', [due.toISOString(), id]);
    await waitFor(
      'the firing transaction waiting on work_items',
      async () => {
        const { rows } = await other.query(
          "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE NOT l.granted AND c.relname = 'work_items'",
        );
        return rows[0].n > 0;
      },
      40_000,
      100,
    );
    const leased = await other.query('SELECT claimed_until FROM schedules WHERE id = $1', [id]);
    expect(leased.rows[0].claimed_until).not.toBeNull();
    expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    await sql.query('ROLLBACK');

    // Nothing of the killed attempt committed.
    await waitFor(
      'the killed backend gone',
      async () => {
        const { rows } = await other.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'",
        );
        return rows[0].n === 0;
      },
      20_000,
    );
    expect((await other.query('SELECT * FROM schedule_occurrences')).rows).toEqual([]);
    expect((await other.query("SELECT id FROM work_items WHERE type = 'crash_tick'")).rows).toEqual([]);

    const second = await startWorkServer({ env, startTimeoutMs: 60_000 });
    const occurrences = await waitFor(
      'the occurrence made after the restart',
      async () => {
        const page = await fetchJson(second.url, 'GET', `/schedules/${id}`);
        const list = page.body?.occurrences as { outcome: string }[] | undefined;
        return list && list.length > 0 ? list : null;
      },
      60_000,
      200,
    );
    expect(occurrences).toEqual([
      expect.objectContaining({ occurrence_at: due.toISOString(), outcome: 'made', work_item_id: expect.any(String) }),
    ]);
    const items = await other.query("SELECT id, payload FROM work_items WHERE type = 'crash_tick'");
    expect(items.rows).toHaveLength(1);
    expect(JSON.parse(items.rows[0].payload).schedule).toEqual({ id, name: 'crash', occurrence_at: due.toISOString() });
    await second.stop();
  }, 180_000);
});
