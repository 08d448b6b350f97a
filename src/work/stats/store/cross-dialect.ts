// The dashboard's reads that are the same SQL on both databases: each adds the deltas not yet
// folded in, so it sees every committed change exactly once.

import { type RawBuilder, sql } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { type StatsRow, type StatsStore, statsRowOf, statusTypeCountsOf } from './port.js';

const CURRENT_SQL = sql`SELECT status, type, CAST(sum(n) AS BIGINT) AS n FROM (
    SELECT status, type, n FROM work_stat_current
    UNION ALL
    SELECT status, type, n FROM work_stat_deltas WHERE metric = 'depth'
  ) c GROUP BY status, type`;

function snapshotSql(since: string): RawBuilder<StatsRow> {
  const flows = sql`metric IN ('depth', 'created', 'finished') AND hour >= ${since}`;
  const agents = sql`metric = 'agent' AND hour >= ${since}`;
  return sql<StatsRow>`
    SELECT 'now' AS part, '' AS metric, NULL AS hour, status, type, '' AS agent, 0 AS bucket, n FROM (${CURRENT_SQL}) now_counts
    UNION ALL
    SELECT 'hour', metric, hour, status, '', '', 0, CAST(sum(n) AS BIGINT) FROM (
      SELECT metric, hour, status, n FROM work_stat_hourly WHERE ${flows}
      UNION ALL
      SELECT metric, hour, status, n FROM work_stat_deltas WHERE ${flows}
    ) h GROUP BY metric, hour, status
    UNION ALL
    SELECT 'agent', '', NULL, status, '', agent, bucket, CAST(sum(n) AS BIGINT) FROM (
      SELECT status, agent, bucket, n FROM work_stat_hourly WHERE ${agents}
      UNION ALL
      SELECT status, agent, bucket, n FROM work_stat_deltas WHERE ${agents}
    ) a GROUP BY agent, status, bucket`;
}

export function crossDialectStatsReads(db: DatabaseHandle): Pick<StatsStore, 'snapshot' | 'itemsByStatusAndType'> {
  return {
    async snapshot(sinceHour) {
      const { rows } = await snapshotSql(sinceHour).execute(db);
      return rows.map(statsRowOf);
    },

    async itemsByStatusAndType() {
      const { rows } = await sql<{ status: string; type: string; n: number }>`${CURRENT_SQL}`.execute(db);
      return statusTypeCountsOf(rows);
    },
  };
}
