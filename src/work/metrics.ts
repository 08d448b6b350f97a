import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../shared/metrics.js';
import type { EventHub } from './events.js';
import type { WorkObserver } from './observer.js';
import { WORK_STATUSES } from './statuses.js';

// The work desk's own metrics. Counters move where things happen, through the WorkObserver the
// service and the claims are given; gauges are read when scraped: in-memory ones from the claims
// and the event hub, the item counts from a WorkGaugeSource (the maintained counts of
// src/work/stats: no scan of work_items per scrape).

/** Where the item gauges come from: asked once per scrape, never on a request's path. */
export interface WorkGaugeSource {
  itemsByStatusAndType(): Promise<{ status: string; type: string; count: number }[]>;
  /** Per type with queued items: seconds since the oldest of them was created. */
  oldestQueuedAgeSeconds(): Promise<{ type: string; age_s: number }[]>;
}

const WORK = `${METRIC_PREFIX}work_`;

/** The counters, as the observer the work service and the claims report to. */
export function createWorkCounters(registry: Registry): WorkObserver {
  const registers = [registry];
  const claims = new Counter({ name: `${WORK}claims_total`, help: 'Items handed to agents by claims, by type', labelNames: ['type'], registers });
  const completions = new Counter({ name: `${WORK}completions_total`, help: 'Items completed, by type', labelNames: ['type'], registers });
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
  return {
    claimed: (type) => claims.inc({ type }),
    finished: (type, status) => {
      if (status === 'completed') completions.inc({ type });
      else if (status === 'failed') failures.inc({ type });
    },
    leaseExpired: (type, outcome) => expiries.inc({ type, outcome }),
  };
}

export interface WorkGaugeDeps {
  source: WorkGaugeSource;
  claims: { waiting(): number };
  hub: Pick<EventHub, 'clients' | 'lag'>;
  logger: Logger;
}

export function registerWorkGauges(registry: Registry, { source, claims, hub, logger }: WorkGaugeDeps): void {
  const registers = [registry];
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
      await source.itemsByStatusAndType().then((rows) => {
        this.reset();
        for (const type of new Set(rows.map((row) => row.type))) {
          for (const status of WORK_STATUSES) this.set({ status, type }, 0);
        }
        for (const row of rows) this.set({ status: row.status, type: row.type }, row.count);
      }, failed(this, 'item counts'));
    },
  });
  new Gauge({
    name: `${WORK}oldest_queued_age_seconds`,
    help: 'Seconds since the oldest queued item of each type was created',
    labelNames: ['type'],
    registers,
    async collect() {
      await source.oldestQueuedAgeSeconds().then((rows) => {
        this.reset();
        for (const row of rows) this.set({ type: row.type }, row.age_s);
      }, failed(this, 'oldest queued item'));
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
