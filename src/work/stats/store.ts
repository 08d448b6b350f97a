import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../shared/db/database.js';

// The SQL of the dashboard's numbers (tables and triggers: migration 009). Writers append to
// work_stat_deltas; `compact` folds those rows into work_stat_hourly and work_stat_current; every
// read adds the rows not yet folded in, in the same statement, so it sees each committed change
// exactly once whether or not a compaction has run.

export const STAT_METRICS = { depth: 'depth', created: 'created', finished: 'finished', agent: 'agent' } as const;

/** One row of the snapshot: a current count, an hourly sum, or an agent's lead-time bucket. */
export interface StatsRow {
  part: 'now' | 'hour' | 'agent';
  metric: string;
  hour: string | null;
  status: string;
  type: string;
  agent: string;
  bucket: number;
  n: number;
}

export interface StatusTypeCount {
  status: string;
  type: string;
  count: number;
}

export interface StatsStore {
  /** Current counts, hourly sums from `sinceHour` on, and agents' buckets, in one snapshot. */
  snapshot(sinceHour: string): Promise<StatsRow[]>;
  itemsByStatusAndType(): Promise<StatusTypeCount[]>;
  /** The creation time of the oldest queued item of each of `types` (null when it has none). */
  oldestQueued(types: string[]): Promise<{ type: string; created_at: string | null }[]>;
  /** The creation time of the oldest queued item whose type is none of `types` (null when there is none). */
  oldestQueuedExcept(types: string[]): Promise<string | null>;
  /** Folds the deltas committed so far into the rollups; resolves how many rows it moved. */
  compact(): Promise<number>;
}

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

// PostgreSQL: one statement. Two instances compacting at once cannot count a row twice: the
// second's DELETE waits for the rows the first has locked, finds them gone once it commits, and
// skips them. Writers never wait: they only insert new rows.
const COMPACT_POSTGRES = sql<{ moved: number }>`
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

/** SQLite runs a compaction on the event loop: in slices, so a backlog cannot hold it long. */
const SQLITE_SLICE = 20_000;

async function compactSqliteSlice(trx: Kysely<any>): Promise<number> {
  const last = await sql<{ upto: number }>`SELECT max(id) AS upto FROM (
      SELECT rowid AS id FROM work_stat_deltas ORDER BY rowid LIMIT ${SQLITE_SLICE}
    )`.execute(trx);
  const upto = last.rows[0]?.upto;
  if (upto === null || upto === undefined) return 0;
  await sql`INSERT INTO work_stat_hourly (metric, hour, status, type, agent, bucket, n)
    SELECT metric, hour, status, type, agent, bucket, sum(n) FROM work_stat_deltas WHERE rowid <= ${upto}
    GROUP BY metric, hour, status, type, agent, bucket
    ON CONFLICT (metric, hour, status, type, agent, bucket) DO UPDATE SET n = n + excluded.n`.execute(trx);
  await sql`INSERT INTO work_stat_current (status, type, n)
    SELECT status, type, sum(n) FROM work_stat_deltas WHERE rowid <= ${upto} AND metric = 'depth'
    GROUP BY status, type
    ON CONFLICT (status, type) DO UPDATE SET n = n + excluded.n`.execute(trx);
  const deleted = await sql`DELETE FROM work_stat_deltas WHERE rowid <= ${upto}`.execute(trx);
  return Number(deleted.numAffectedRows ?? 0);
}

export function createStatsStore(database: Database): StatsStore {
  const db = database.kysely as Kysely<any>;
  const postgres = database.dialect === 'postgres';
  return {
    async snapshot(sinceHour) {
      const { rows } = await snapshotSql(sinceHour).execute(db);
      return rows.map((row) => ({ ...row, n: Number(row.n), bucket: Number(row.bucket) }));
    },

    async itemsByStatusAndType() {
      const { rows } = await sql<{ status: string; type: string; n: number }>`${CURRENT_SQL}`.execute(db);
      return rows
        .map((row) => ({ status: row.status, type: row.type, count: Number(row.n) }))
        .filter((row) => row.count !== 0);
    },

    async oldestQueued(types) {
      if (types.length === 0) return [];
      // Each type is one probe of the partial index work_items_queued_type_age.
      const query = postgres
        ? sql<{ type: string; created_at: string | null }>`SELECT t.type, (
              SELECT w.created_at FROM work_items w WHERE w.status = 'queued' AND w.type = t.type
              ORDER BY w.created_at LIMIT 1
            ) AS created_at FROM unnest(${types}::text[]) AS t(type)`
        : sql<{ type: string; created_at: string | null }>`SELECT t.value AS type, (
              SELECT w.created_at FROM work_items w WHERE w.status = 'queued' AND w.type = t.value
              ORDER BY w.created_at LIMIT 1
            ) AS created_at FROM json_each(${JSON.stringify(types)}) AS t`;
      const { rows } = await query.execute(db);
      return rows;
    },

    async oldestQueuedExcept(types) {
      // One query for the long tail, instead of one probe per type: it reads at most the queued
      // items (an index of them, whichever the planner takes), once per scrape.
      const query = postgres
        ? sql<{ created_at: string }>`SELECT created_at FROM work_items
            WHERE status = 'queued' AND type <> ALL(${types}::text[]) ORDER BY created_at LIMIT 1`
        : sql<{ created_at: string }>`SELECT created_at FROM work_items
            WHERE status = 'queued' AND type NOT IN (SELECT value FROM json_each(${JSON.stringify(types)}))
            ORDER BY created_at LIMIT 1`;
      const { rows } = await query.execute(db);
      return rows[0]?.created_at ?? null;
    },

    async compact() {
      if (postgres) {
        const { rows } = await COMPACT_POSTGRES.execute(db);
        return rows[0]?.moved ?? 0;
      }
      let moved = 0;
      for (;;) {
        const slice = await database.transaction((trx) => compactSqliteSlice(trx));
        moved += slice;
        if (slice < SQLITE_SLICE) return moved;
      }
    },
  };
}
