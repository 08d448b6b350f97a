// The dashboard's numbers on PostgreSQL: the reads add the deltas not yet folded in, and the
// compaction is one statement.

import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { crossDialectStatsReads } from './cross-dialect.js';
import type { StatsStore } from './port.js';

// One statement. Two instances compacting at once cannot count a row twice: the second's
// DELETE waits for the rows the first has locked, finds them gone once it commits, and skips
// them. Writers never wait: they only insert new rows.
const COMPACT = sql<{ moved: number }>`
  WITH moved AS (
    DELETE FROM work_stat_deltas RETURNING metric, hour, status, type, agent, bucket, n
  ), rolled AS (
    INSERT INTO work_stat_hourly AS h (metric, hour, status, type, agent, bucket, n)
    SELECT metric, hour, status, type, agent, bucket, sum(n) FROM moved
    GROUP BY metric, hour, status, type, agent, bucket
    ON CONFLICT (metric, hour, status, type, agent, bucket) DO UPDATE SET n = h.n + EXCLUDED.n
  ), counted AS (
    INSERT INTO work_stat_current AS c (status, type, n)
    SELECT status, type, sum(n) FROM moved WHERE metric = 'depth' GROUP BY status, type
    ON CONFLICT (status, type) DO UPDATE SET n = c.n + EXCLUDED.n
  )
  SELECT count(*)::int AS moved FROM moved`;

export function createPostgresStatsStore(db: DatabaseHandle): StatsStore {
  return {
    ...crossDialectStatsReads(db),

    async oldestQueued(types) {
      if (types.length === 0) return [];
      // Each type is one probe of the partial index work_items_queued_type_age.
      const { rows } = await sql<{ type: string; created_at: string | null }>`SELECT t.type, (
          SELECT w.created_at FROM work_items w WHERE w.status = 'queued' AND w.type = t.type
          ORDER BY w.created_at LIMIT 1
        ) AS created_at FROM unnest(${types}::text[]) AS t(type)`.execute(db);
      return rows;
    },

    async oldestQueuedExcept(types) {
      // One query for the long tail, instead of one probe per type: it reads at most the queued
      // items (an index of them, whichever the planner takes), once per scrape.
      const { rows } = await sql<{ created_at: string }>`SELECT created_at FROM work_items
        WHERE status = 'queued' AND type <> ALL(${types}::text[]) ORDER BY created_at LIMIT 1`.execute(db);
      return rows[0]?.created_at ?? null;
    },

    async compact() {
      const { rows } = await COMPACT.execute(db);
      return rows[0]?.moved ?? 0;
    },
  };
}
