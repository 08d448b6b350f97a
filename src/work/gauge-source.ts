import type { Kysely } from 'kysely';
import type { Database } from '../shared/db.js';
import type { WorkGaugeSource } from './metrics.js';
import type { WorkTables } from './tables.js';

// The work gauges read straight from work_items, at scrape time. Plain SQL, kept in a file of its
// own so a source that reads maintained counts (a rollup table) can take its place without
// touching the metrics:
//   - counts by status and type: one GROUP BY over the whole table. No index covers (status,
//     type), so this is a scan, fine for thousands of items and slow at a million;
//   - the oldest queued item by type: a range over the queued slice of work_items_status_newest
//     (status, created_at, id), so it reads the queue, not the table.

export function createSqlGaugeSource(database: Pick<Database, 'kysely'>, now: () => Date = () => new Date()): WorkGaugeSource {
  const db = database.kysely as Kysely<WorkTables>;
  return {
    async itemsByStatusAndType() {
      const rows = await db
        .selectFrom('work_items')
        .select(['status', 'type', (eb) => eb.fn.countAll<number | string>().as('count')])
        .groupBy(['status', 'type'])
        .execute();
      return rows.map((row) => ({ status: row.status, type: row.type, count: Number(row.count) }));
    },

    async oldestQueuedAgeSeconds() {
      const rows = await db
        .selectFrom('work_items')
        .where('status', '=', 'queued')
        .select(['type', (eb) => eb.fn.min('created_at').as('oldest')])
        .groupBy('type')
        .execute();
      const at = now().getTime();
      return rows.map((row) => ({ type: row.type, age_s: Math.max(0, (at - Date.parse(String(row.oldest))) / 1000) }));
    },
  };
}
