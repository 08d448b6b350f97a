import { useEffect, useMemo, useRef } from 'preact/hooks';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { type ChartSeries, TimeChart } from './time-chart.tsx';
import { ApiProblem, api, withQuery } from '../../lib/api.ts';
import { statusLabel } from '../../lib/format.ts';
import { useLive } from '../../lib/live.ts';
import { href } from '../../lib/router.ts';
import { DASHBOARD_DAYS, DASHBOARD_STATS_PATH, takePrefetched } from '../../lib/prefetch.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { WorkStats } from '../../../../src/work/stats/schemas.ts';

// The desk at a glance: is work flowing or piling up, which agents are slow or failing, what the
// classifier costs. One request (GET /work/stats) paints everything but the classifier panel,
// which asks the usage endpoint on its own so that a desk without it still shows the rest.

const DAYS = DASHBOARD_DAYS;
/** Events arrive in bursts: read the numbers again at most this often. */
const RELOAD_EVERY_MS = 2_000;
const OPEN = ['queued', 'dispatched', 'in_progress', 'blocked'] as const;

interface UsageRow {
  day: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  duplicates_served: number;
  fallbacks: number;
  estimated_cost: number | null;
}

interface Usage {
  currency: string;
  totals: { calls: number; duplicates_served: number; estimated_cost: number | null };
  rows: UsageRow[];
}

type UsageState = { available: true; usage: Usage } | { available: false };

const hourFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const formatHour = (s: number) => `${hourFormat.format(s * 1000)} UTC`;
const formatDay = (s: number) => dayFormat.format(s * 1000);

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}

function formatRate(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(rate < 0.1 && rate > 0 ? 1 : 0)}%`;
}

function formatCost(cost: number | null, currency: string): string {
  if (cost === null) return 'unknown';
  try {
    return new Intl.NumberFormat(undefined, {
      style: 'currency',
      currency,
      maximumFractionDigits: cost < 1 ? 4 : 2,
    }).format(cost);
  } catch {
    return `${cost.toFixed(4)} ${currency}`;
  }
}

async function loadStats(signal: AbortSignal): Promise<WorkStats> {
  const early = takePrefetched<WorkStats>(DASHBOARD_STATS_PATH);
  if (early !== null) {
    try {
      return (await early).data;
    } catch {
      // Refused before sign-in, or the network blinked: read again now.
    }
  }
  return (await api<WorkStats>('GET', DASHBOARD_STATS_PATH, undefined, signal)).data;
}

async function loadUsage(signal: AbortSignal): Promise<UsageState> {
  // Midnight UTC of the first of the days shown: the API takes a date-time, and a bare date is refused.
  const since = `${new Date(Date.now() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`;
  try {
    const { data } = await api<Usage>(
      'GET',
      withQuery('/ui-api/classify-usage', { group_by: 'day', since }),
      undefined,
      signal,
    );
    return data && Array.isArray(data.rows) ? { available: true, usage: data } : { available: false };
  } catch (err) {
    // Not there (an older classify service), not allowed, or down: the panel says so, the rest stands.
    if (err instanceof ApiProblem) return { available: false };
    throw err;
  }
}

/** Re-reads on work events, at most once per RELOAD_EVERY_MS, the first at once. */
function useThrottledReload(reload: () => void) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const last = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);
  useLive((e) => {
    if (!e.type.startsWith('work.') && e.type !== 'resync') return;
    if (timer.current !== undefined) return;
    const wait = Math.max(0, last.current + RELOAD_EVERY_MS - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      last.current = Date.now();
      reload();
    }, wait);
  });
}

export function DashboardPage() {
  const stats = useLoad('dashboard-stats', loadStats);
  const usage = useLoad('dashboard-usage', loadUsage);
  useThrottledReload(stats.reload);
  const s = stats.data;

  return (
    <section aria-labelledby="dashboard-title" class="dashboard">
      <h1 id="dashboard-title">Dashboard</h1>
      <ProblemMessage problem={stats.error} />
      {s === null ? (
        !stats.error && <p class="muted">Loading…</p>
      ) : (
        <>
          <Tiles stats={s} />
          <div class="chart-grid">
            <FlowChart stats={s} />
            <DepthChart stats={s} />
          </div>
          <AgentsTable stats={s} />
        </>
      )}
      {/* Only below the numbers once they are in: painted first, the classifier's card was
          pushed down the page by everything above it (a layout shift of up to 0.43). */}
      {(s !== null || stats.error) && <UsagePanel state={usage.data} loading={usage.data === null && !usage.error} />}
    </section>
  );
}

function Tiles({ stats }: { stats: WorkStats }) {
  const tiles: { id: string; label: string; value: string; link?: string }[] = [
    { id: 'queued', label: 'Queued now', value: String(stats.by_status.queued), link: href('/', { status: 'queued' }) },
    {
      id: 'in_progress',
      label: 'In progress',
      value: String(stats.by_status.in_progress),
      link: href('/', { status: 'in_progress' }),
    },
    { id: 'blocked', label: 'Blocked', value: String(stats.by_status.blocked), link: href('/', { status: 'blocked' }) },
    { id: 'oldest-queued', label: 'Oldest queued', value: formatDuration(stats.oldest_queued_age_s) },
    { id: 'created', label: `Created, ${DAYS} days`, value: String(stats.totals.created) },
    { id: 'completed', label: `Completed, ${DAYS} days`, value: String(stats.totals.completed) },
    { id: 'failed', label: `Failed, ${DAYS} days`, value: String(stats.totals.failed) },
  ];
  return (
    <dl class="tiles">
      {tiles.map((tile) => (
        <div class="card tile" key={tile.id} data-testid={`tile-${tile.id}`}>
          <dt class="muted small">{tile.label}</dt>
          {/* Element Timing: the browser reports when these numbers were first painted (bench:dashboard reads it). */}
          <dd class="tile-value" {...{ elementtiming: 'dashboard-numbers' }}>
            {tile.link ? <a href={tile.link}>{tile.value}</a> : tile.value}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A day, the least the hourly charts show. */
const MIN_HOURS = 24;

/**
 * The hours worth drawing: from the first with anything in it (a day at least), so that a desk
 * started an hour ago is not a spike at the right edge of an empty week.
 */
function shownHours(stats: WorkStats): WorkStats['hourly'] {
  const h = stats.hourly;
  const first = h.findIndex((x) => x.created + x.completed + x.failed > 0 || OPEN.some((st) => x.depth[st] > 0));
  const start = first === -1 ? h.length - MIN_HOURS : Math.min(first, h.length - MIN_HOURS);
  return h.slice(Math.max(0, start));
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function FlowChart({ stats }: { stats: WorkStats }) {
  const hours = useMemo(() => shownHours(stats), [stats]);
  const times = useMemo(() => hours.map((h) => Date.parse(h.hour) / 1000), [hours]);
  const series: ChartSeries[] = useMemo(
    () => [
      { label: 'Created', color: '--accent', values: hours.map((h) => h.created) },
      { label: 'Completed', color: '--s-completed', values: hours.map((h) => h.completed) },
      { label: 'Failed', color: '--s-failed', values: hours.map((h) => h.failed) },
    ],
    [hours],
  );
  const { created, completed, failed } = stats.totals;
  return (
    <TimeChart
      testId="chart-flow"
      title="Created and completed per hour"
      summary={`Last ${DAYS} days: ${created} created, ${completed} completed, ${failed} failed.`}
      times={times}
      series={series}
      formatTime={formatHour}
    />
  );
}

function DepthChart({ stats }: { stats: WorkStats }) {
  const hours = useMemo(() => shownHours(stats), [stats]);
  const times = useMemo(() => hours.map((h) => Date.parse(h.hour) / 1000), [hours]);
  // Legends are labels, capitalised like every other legend ("Created", "In progress").
  const series: ChartSeries[] = useMemo(
    () =>
      OPEN.map((status) => ({
        label: sentence(statusLabel(status)),
        color: `--s-${status}`,
        values: hours.map((h) => h.depth[status]),
      })),
    [hours],
  );
  const peak = Math.max(0, ...stats.hourly.map((h) => h.depth.queued));
  return (
    <TimeChart
      testId="chart-depth"
      title="Queue depth by status"
      summary={`Now: ${OPEN.map((st) => `${stats.by_status[st]} ${statusLabel(st)}`).join(', ')}. Most queued at the end of an hour: ${peak}.`}
      times={times}
      series={series}
      formatTime={formatHour}
    />
  );
}

function AgentsTable({ stats }: { stats: WorkStats }) {
  return (
    <section class="card" aria-labelledby="dashboard-agents">
      <h2 id="dashboard-agents">Agents, last {DAYS} days</h2>
      {stats.agents.length === 0 ? (
        <p class="empty">No agent has finished any work in this time.</p>
      ) : (
        <div class="table-wrap">
          <table class="items cards-on-phone" data-testid="agents-table">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col" class="num">
                  Completed
                </th>
                <th scope="col" class="num">
                  Failed
                </th>
                <th scope="col" class="num">
                  Failure rate
                </th>
                <th scope="col" class="num">
                  Lead time, median
                </th>
                <th scope="col" class="num">
                  Lead time, p90
                </th>
              </tr>
            </thead>
            <tbody>
              {stats.agents.map((a) => (
                <tr key={a.agent} data-agent={a.agent}>
                  <th scope="row">
                    <a href={href('/', { agent: a.agent })}>{a.agent}</a>
                  </th>
                  <td class="num" data-label="Completed">
                    {a.completed}
                  </td>
                  <td class="num" data-label="Failed">
                    {a.failed}
                  </td>
                  <td class="num" data-label="Failure rate">
                    {formatRate(a.failure_rate)}
                  </td>
                  <td class="num" data-label="Lead time, median">
                    {formatDuration(a.lead_time_median_s)}
                  </td>
                  <td class="num" data-label="Lead time, p90">
                    {formatDuration(a.lead_time_p90_s)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="muted small">
        Lead time: from dispatch to completion. Failed counts dispatches that failed or whose lease ran out.
      </p>
    </section>
  );
}

function UsagePanel({ state, loading }: { state: UsageState | null; loading: boolean }) {
  if (loading || state === null) {
    return (
      <section class="card" aria-labelledby="dashboard-usage" data-testid="usage-panel">
        <h2 id="dashboard-usage">Classifier</h2>
        <p class="muted">Loading…</p>
      </section>
    );
  }
  if (!state.available) {
    return (
      <section class="card" aria-labelledby="dashboard-usage" data-testid="usage-panel">
        <h2 id="dashboard-usage">Classifier</h2>
        <p class="muted">Classifier usage unavailable.</p>
      </section>
    );
  }
  return <UsageCharts usage={state.usage} />;
}

function UsageCharts({ usage }: { usage: Usage }) {
  const rows = [...usage.rows].sort((a, b) => a.day.localeCompare(b.day));
  const times = rows.map((r) => Date.parse(`${r.day}T00:00:00Z`) / 1000);
  const series: ChartSeries[] = [
    { label: 'Calls', color: '--accent', values: rows.map((r) => r.calls) },
    { label: 'Duplicates saved', color: '--s-completed', values: rows.map((r) => r.duplicates_served) },
  ];
  const costSeries: ChartSeries[] = [
    { label: `Cost (${usage.currency})`, color: '--s-blocked', values: rows.map((r) => r.estimated_cost) },
  ];
  const { calls, duplicates_served, estimated_cost } = usage.totals;
  return (
    <div class="chart-grid" data-testid="usage-panel">
      <TimeChart
        testId="usage-calls"
        title="Classifier calls per day"
        summary={`Last ${DAYS} days: ${calls} provider calls, ${duplicates_served} duplicates answered from the store.`}
        times={times}
        series={series}
        formatTime={formatDay}
        shape="bars"
        skipEmptyRows={false}
      />
      <TimeChart
        title="Classifier cost per day"
        summary={`Estimated cost over ${DAYS} days: ${formatCost(estimated_cost, usage.currency)}.`}
        times={times}
        series={costSeries}
        formatTime={formatDay}
        shape="bars"
        unit={{ kind: 'money', currency: usage.currency }}
        skipEmptyRows={false}
      />
    </div>
  );
}
