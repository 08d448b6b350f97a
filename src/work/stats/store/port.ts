// The port of the dashboard's numbers (tables and triggers: migration 009). Writers append to
// work_stat_deltas; `compact` folds them into work_stat_hourly and work_stat_current; every read
// adds the rows not yet folded in, in the same statement, so it sees each committed change once.

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

/** A snapshot row as either database returns it (the sums may come back as text). */
export function statsRowOf(row: StatsRow): StatsRow {
  return { ...row, n: Number(row.n), bucket: Number(row.bucket) };
}

/** The current counts as either database returns them, without the pairs that net to zero. */
export function statusTypeCountsOf(rows: { status: string; type: string; n: number }[]): StatusTypeCount[] {
  return rows
    .map((row) => ({ status: row.status, type: row.type, count: Number(row.n) }))
    .filter((row) => row.count !== 0);
}

/** The dashboard's tables (migration 009): deltas that writers append, folded into the other two. */
export interface StatsTables {
  work_stat_deltas: {
    hour: string;
    metric: string;
    status: string;
    type: string;
    agent: string;
    bucket: number;
    n: number;
  };
  work_stat_hourly: {
    metric: string;
    hour: string;
    status: string;
    type: string;
    agent: string;
    bucket: number;
    n: number;
  };
  work_stat_current: { status: string; type: string; n: number };
}

declare module '../../../shared/db/schema.js' {
  interface DatabaseSchema extends StatsTables {}
}
