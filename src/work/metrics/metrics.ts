import type { Logger } from 'pino';
import { Counter, Gauge, type LabelValues, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../shared/observability/metrics.js';
import type { EventHub } from '../events/hub.js';
import type { WorkObserver } from './observer.js';
import { WORK_STATUSES } from '../items/statuses.js';
import {
  DEFAULT_MAX_TYPES,
  OTHER_TYPE,
  type TypeLabels,
  createTypeLabels,
  totalsByType,
} from '../items/type-labels.js';

interface ByType {
  /** Items by status and label: a type without a place is counted under `other`. */
  items: { status: string; type: string; count: number }[];
  oldest: Awaited<ReturnType<WorkGaugeSource['oldestQueuedAgeSeconds']>>;
}

async function readByType(source: WorkGaugeSource, counters: Pick<WorkCounters, 'rank' | 'labels'>): Promise<ByType> {
  const rows = await source.itemsByStatusAndType();
  counters.rank(totalsByType(rows));
  const labelled = counters.labels.labelled();
  const items = rows.map((row) => ({ ...row, type: labelled.has(row.type) ? row.type : OTHER_TYPE }));
  // The rest's oldest is a read of queued items, not a probe: asked only when there is one.
  const restQueued = rows.some((row) => row.status === 'queued' && row.count > 0 && !labelled.has(row.type));
  const oldest = await source.oldestQueuedAgeSeconds([...labelled], restQueued);
  return { items, oldest };
}

// The work desk's own metrics. Counters move where things happen, through the WorkObserver the
// service and the claims are given; gauges are read when scraped: in-memory ones from the claims
// and the event hub, the item counts from a WorkGaugeSource (the maintained counts of
// src/work/stats: no scan of work_items per scrape). The `type` label holds one of the most
// frequent types or `other` (src/work/items/type-labels.ts): callers choose types, not series.

/** Where the item gauges come from: asked once per scrape, never on a request's path. */
export interface WorkGaugeSource {
  itemsByStatusAndType(): Promise<{ status: string; type: string; count: number }[]>;
  /**
   * Seconds since the oldest queued item of each of `types` was created (those with queued
   * items), and, when `rest`, since the oldest of every other type's (null when they have none,
   * and when not asked).
   */
  oldestQueuedAgeSeconds(
    types: readonly string[],
    rest: boolean,
  ): Promise<{ byType: { type: string; age_s: number }[]; rest: number | null }>;
}

const WORK = `${METRIC_PREFIX}work_`;

/**
 * A counter by type (and other labels) whose series follow `labels`: when a type loses its
 * place, what it counted moves to `other`, so the sum over the series stays the total.
 */
function typeCounter(counter: Counter, labels: TypeLabels) {
  const counted = new Map<string, { values: LabelValues<string>; n: number }>();
  return {
    inc(type: string, extra: LabelValues<string> = {}) {
      const values = { ...extra, type: labels.of(type) };
      const key = JSON.stringify(values);
      const entry = counted.get(key) ?? { values, n: 0 };
      entry.n += 1;
      counted.set(key, entry);
      counter.inc(values);
    },
    fold(lost: ReadonlySet<string>) {
      for (const [key, { values, n }] of [...counted]) {
        if (!lost.has(String(values.type))) continue;
        counted.delete(key);
        counter.remove(values);
        const into = { ...values, type: OTHER_TYPE };
        const intoKey = JSON.stringify(into);
        const entry = counted.get(intoKey) ?? { values: into, n: 0 };
        entry.n += n;
        counted.set(intoKey, entry);
        counter.inc(into, n);
      }
    },
  };
}

export interface WorkCounters extends WorkObserver {
  /** Ranks the types again from items per type; the counters of types that lost their place move to `other`. */
  rank(totals: ReadonlyMap<string, number>): void;
  labels: TypeLabels;
}

/** The counters, as the observer the work service and the claims report to. */
export function createWorkCounters(registry: Registry, maxTypes = DEFAULT_MAX_TYPES): WorkCounters {
  const registers = [registry];
  const labels = createTypeLabels(maxTypes);
  const claims = new Counter({
    name: `${WORK}claims_total`,
    help: 'Items handed to agents by claims, by type',
    labelNames: ['type'],
    registers,
  });
  const completions = new Counter({
    name: `${WORK}completions_total`,
    help: 'Items completed, by type',
    labelNames: ['type'],
    registers,
  });
  const failures = new Counter({
    name: `${WORK}failures_total`,
    help: 'Items failed, by type: by their agent, or by the lease sweep once no attempts were left',
    labelNames: ['type'],
    registers,
  });
  const expiries = new Counter({
    name: `${WORK}lease_expiries_total`,
    help: 'Leases that ran out, by type and what became of the item (requeued, or failed with no attempts left)',
    labelNames: ['type', 'outcome'],
    registers,
  });
  const counters = [claims, completions, failures, expiries].map((counter) => typeCounter(counter, labels));
  const [claimed, completed, failed, expired] = counters as [
    ReturnType<typeof typeCounter>,
    ...ReturnType<typeof typeCounter>[],
  ];
  return {
    claimed: (type) => claimed.inc(type),
    finished: (type, status) => {
      if (status === 'completed') completed!.inc(type);
      else if (status === 'failed') failed!.inc(type);
    },
    leaseExpired: (type, outcome) => expired!.inc(type, { outcome }),
    rank(totals) {
      const lost = new Set(labels.rank(totals));
      if (lost.size > 0) for (const counter of counters) counter.fold(lost);
    },
    labels,
  };
}

export interface WorkGaugeDeps {
  source: WorkGaugeSource;
  /** Whose ranking of types the gauges follow, so gauges and counters carry the same labels. */
  counters: Pick<WorkCounters, 'rank' | 'labels'>;
  claims: { waiting(): number; reads(): number };
  hub: Pick<EventHub, 'clients' | 'lag'>;
  logger: Logger;
}

export function registerWorkGauges(registry: Registry, { source, counters, claims, hub, logger }: WorkGaugeDeps): void {
  const registers = [registry];
  // Both type gauges read one ranking per scrape: the gauges of a registry are collected at once.
  let reading: Promise<ByType> | null = null;
  const byType = (): Promise<ByType> => {
    reading ??= readByType(source, counters).finally(() => {
      reading = null;
    });
    return reading;
  };
  // A source that fails (the database is away) leaves its gauge empty for this scrape rather
  // than failing the whole scrape or showing numbers from an earlier one.
  const failed = (gauge: Gauge, what: string) => (error: unknown) => {
    gauge.reset();
    logger.warn({ err: { message: (error as Error).message } }, `metrics: ${what} unavailable`);
  };

  new Gauge({
    name: `${WORK}items`,
    help: 'Work items by status and type (every status of a type that has items, zeros included)',
    labelNames: ['status', 'type'],
    registers,
    async collect() {
      await byType().then(
        ({ items }) => {
          this.reset();
          for (const type of new Set(items.map((row) => row.type))) {
            for (const status of WORK_STATUSES) this.set({ status, type }, 0);
          }
          for (const row of items) this.inc({ status: row.status, type: row.type }, row.count);
        },
        failed(this, 'item counts'),
      );
    },
  });
  new Gauge({
    name: `${WORK}oldest_queued_age_seconds`,
    help: 'Seconds since the oldest queued item of each type was created',
    labelNames: ['type'],
    registers,
    async collect() {
      await byType().then(
        ({ oldest }) => {
          this.reset();
          for (const row of oldest.byType) this.set({ type: row.type }, row.age_s);
          if (oldest.rest !== null) this.set({ type: OTHER_TYPE }, oldest.rest);
        },
        failed(this, 'oldest queued item'),
      );
    },
  });
  new Gauge({
    name: `${WORK}claims_waiting`,
    help: 'Claims waiting for an item (long polls with wait_s) in this process',
    registers,
    collect() {
      this.set(claims.waiting());
    },
  });
  let readsCounted = 0;
  new Counter({
    name: `${WORK}claim_reads_total`,
    help: 'Reads of the queue by claims in this process (one statement each on PostgreSQL), waiting claims woken included',
    registers,
    collect() {
      const reads = claims.reads();
      this.inc(reads - readsCounted);
      readsCounted = reads;
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}events_clients`,
    help: 'Clients following GET /events (Server-Sent Events) from this process',
    registers,
    collect() {
      this.set(hub.clients());
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}events_lag_events`,
    help: 'Events in the log not yet sent to the client furthest behind (0 with no clients)',
    registers,
    async collect() {
      await hub.lag().then((lag) => this.set(lag), failed(this, 'event-log lag'));
    },
  });
}
