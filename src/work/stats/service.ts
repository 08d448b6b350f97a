import { WORK_STATUSES, type WorkStatus } from '../items/statuses.js';
import { DEFAULT_MAX_TYPES, OTHER_TYPE, mostFrequentTypes } from '../items/type-labels.js';
import { quantileSeconds } from './lead-time.js';
import { OPEN_STATUSES, type AgentStats, type StatsHour, type WorkStats } from './schemas.js';
import { STAT_METRICS, type StatsRow, type StatsStore, type StatusTypeCount } from './store/port.js';

// The dashboard's numbers from the rollups: hourly flows, queue depth over time (today's counts
// walked back through each hour's net changes), agents' results and lead-time percentiles.

const HOUR_MS = 3_600_000;

export interface StatsService {
  workStats(days: number): Promise<WorkStats>;
  /** For /metrics: items by status and type, exact, without reading work_items. */
  itemsByStatusAndType(): Promise<StatusTypeCount[]>;
  /**
   * For /metrics: how long the oldest queued item of each of `types` has waited (one index probe
   * per type), and, when `rest`, the oldest of every other type's (one more query, which reads
   * the queued items).
   */
  oldestQueuedAgeSeconds(
    types: readonly string[],
    rest: boolean,
  ): Promise<{ byType: OldestQueued[]; rest: number | null }>;
}

interface OldestQueued {
  type: string;
  age_s: number;
}

export interface StatsServiceDeps {
  store: StatsStore;
  now?: () => Date;
  /** Types listed on their own in `by_type` and `oldest_queued_by_type`; the rest are `other`. */
  maxTypes?: number;
}

const sum = (counts: Record<WorkStatus, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * The `max` types with the most items (ties by name), each with its counts, and every other
 * type's counts added up as one, with how many types that is (null when there are none).
 */
function foldTypes(byType: Map<string, Record<WorkStatus, number>>, max: number) {
  const totals = new Map([...byType].map(([type, counts]) => [type, sum(counts)]));
  const listed = mostFrequentTypes(totals, max).map((type) => [type, byType.get(type)!] as const);
  const kept = new Set(listed.map(([type]) => type));
  let other: { counts: Record<WorkStatus, number>; types: number } | null = null;
  for (const [type, counts] of byType) {
    if (kept.has(type)) continue;
    other ??= { counts: zeroCounts(), types: 0 };
    other.types += 1;
    for (const status of WORK_STATUSES) other.counts[status] += counts[status];
  }
  return { listed, other };
}

function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

function zeroCounts(): Record<WorkStatus, number> {
  return Object.fromEntries(WORK_STATUSES.map((status) => [status, 0])) as Record<WorkStatus, number>;
}

function isStatus(value: string): value is WorkStatus {
  return (WORK_STATUSES as readonly string[]).includes(value);
}

function agentStats(rows: StatsRow[]): AgentStats[] {
  const byAgent = new Map<string, { completed: number; failed: number; buckets: Map<number, number> }>();
  for (const row of rows) {
    const entry = byAgent.get(row.agent) ?? { completed: 0, failed: 0, buckets: new Map<number, number>() };
    byAgent.set(row.agent, entry);
    if (row.status === 'completed') {
      entry.completed += row.n;
      entry.buckets.set(row.bucket, (entry.buckets.get(row.bucket) ?? 0) + row.n);
    } else {
      entry.failed += row.n;
    }
  }
  return [...byAgent.entries()]
    .map(([agent, { completed, failed, buckets }]) => ({
      agent,
      completed,
      failed,
      failure_rate: completed + failed === 0 ? null : Math.round((failed / (completed + failed)) * 10_000) / 10_000,
      lead_time_median_s: quantileSeconds(buckets, 0.5),
      lead_time_p90_s: quantileSeconds(buckets, 0.9),
    }))
    .sort((a, b) => b.completed + b.failed - (a.completed + a.failed) || a.agent.localeCompare(b.agent));
}

/** Hour by hour from `sinceMs` to the current hour; depth walked back from `current`. */
function hourlySeries(
  rows: StatsRow[],
  sinceMs: number,
  nowMs: number,
  current: Record<WorkStatus, number>,
): StatsHour[] {
  const hours: StatsHour[] = [];
  const index = new Map<number, StatsHour>();
  for (let at = sinceMs; at <= hourOf(nowMs); at += HOUR_MS) {
    const hour: StatsHour = {
      hour: new Date(at).toISOString(),
      created: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
      depth: { queued: 0, dispatched: 0, in_progress: 0, blocked: 0 },
    };
    hours.push(hour);
    index.set(at, hour);
  }
  const lastMs = hours.length ? Date.parse(hours[hours.length - 1]!.hour) : sinceMs;
  // Net change of each open status per hour, and after the last hour shown (clock skew, future-dated rows).
  const net = new Map<number, Record<string, number>>();
  const after: Record<string, number> = {};
  for (const row of rows) {
    const at = Date.parse(row.hour ?? '');
    const hour = index.get(at);
    if (row.metric === STAT_METRICS.created && hour) hour.created += row.n;
    else if (row.metric === STAT_METRICS.finished && hour) {
      if (row.status === 'completed') hour.completed += row.n;
      else if (row.status === 'failed') hour.failed += row.n;
      else if (row.status === 'cancelled') hour.cancelled += row.n;
    } else if (row.metric === STAT_METRICS.depth) {
      const target = at > lastMs ? after : (net.get(at) ?? net.set(at, {}).get(at)!);
      target[row.status] = (target[row.status] ?? 0) + row.n;
    }
  }
  // Depth at the end of hour h = now − every net change after h.
  const later: Record<string, number> = { ...after };
  for (let i = hours.length - 1; i >= 0; i -= 1) {
    const hour = hours[i]!;
    for (const status of OPEN_STATUSES) hour.depth[status] = current[status] - (later[status] ?? 0);
    const changes = net.get(Date.parse(hour.hour)) ?? {};
    for (const [status, n] of Object.entries(changes)) later[status] = (later[status] ?? 0) + n;
  }
  return hours;
}

const ageSeconds = (createdAt: string, nowMs: number) => Math.max(0, Math.round(nowMs - Date.parse(createdAt)) / 1000);

export function createStatsService({
  store,
  now = () => new Date(),
  maxTypes = DEFAULT_MAX_TYPES,
}: StatsServiceDeps): StatsService {
  /** The oldest queued item of each of `types`, and of every other type's when `rest` asks for it. */
  async function oldestQueued(types: readonly string[], nowMs: number, rest: boolean) {
    const [rows, restCreated] = await Promise.all([
      store.oldestQueued([...types]),
      rest ? store.oldestQueuedExcept([...types]) : null,
    ]);
    const byType = rows
      .filter((row): row is { type: string; created_at: string } => row.created_at !== null)
      .map((row) => ({ type: row.type, age_s: ageSeconds(row.created_at, nowMs) }))
      .sort((a, b) => b.age_s - a.age_s || a.type.localeCompare(b.type));
    return { byType, rest: restCreated === null ? null : ageSeconds(restCreated, nowMs) };
  }

  return {
    async workStats(days) {
      const nowMs = now().getTime();
      const sinceMs = hourOf(nowMs) - days * 24 * HOUR_MS;
      const rows = await store.snapshot(new Date(sinceMs).toISOString());
      const byStatus = zeroCounts();
      const byType = new Map<string, Record<WorkStatus, number>>();
      for (const row of rows) {
        if (row.part !== 'now' || row.n === 0 || !isStatus(row.status)) continue;
        byStatus[row.status] += row.n;
        const counts = byType.get(row.type) ?? zeroCounts();
        counts[row.status] += row.n;
        byType.set(row.type, counts);
      }
      const { listed, other } = foldTypes(byType, maxTypes);
      const queuedListed = listed.filter(([, counts]) => counts.queued > 0).map(([type]) => type);
      const oldest = await oldestQueued(queuedListed, nowMs, other !== null && other.counts.queued > 0);
      const oldestByType = [
        ...oldest.byType,
        ...(oldest.rest === null ? [] : [{ type: OTHER_TYPE, age_s: oldest.rest }]),
      ].sort((a, b) => b.age_s - a.age_s || a.type.localeCompare(b.type));
      const hourly = hourlySeries(
        rows.filter((row) => row.part === 'hour'),
        sinceMs,
        nowMs,
        byStatus,
      );
      const totals = { created: 0, completed: 0, failed: 0, cancelled: 0 };
      for (const hour of hourly) {
        totals.created += hour.created;
        totals.completed += hour.completed;
        totals.failed += hour.failed;
        totals.cancelled += hour.cancelled;
      }
      return {
        generated_at: new Date(nowMs).toISOString(),
        since: new Date(sinceMs).toISOString(),
        until: new Date(nowMs).toISOString(),
        by_status: byStatus,
        by_type: [
          ...listed.map(([type, counts]) => ({ type, total: sum(counts), by_status: counts })),
          ...(other === null ? [] : [{ type: OTHER_TYPE, total: sum(other.counts), by_status: other.counts }]),
        ],
        other_types: other?.types ?? 0,
        oldest_queued_age_s: oldestByType[0]?.age_s ?? null,
        oldest_queued_by_type: oldestByType,
        totals,
        hourly,
        agents: agentStats(rows.filter((row) => row.part === 'agent')),
      };
    },

    itemsByStatusAndType: () => store.itemsByStatusAndType(),

    oldestQueuedAgeSeconds: (types, rest) => oldestQueued(types, now().getTime(), rest),
  };
}
