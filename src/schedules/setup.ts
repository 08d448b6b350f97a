import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { sql } from 'kysely';
import type { Database } from '../shared/db/database.js';
import type { WorkStore } from '../work/index.js';
import type { ItemMaker } from './items.js';
import { createOccurrenceCounter } from './metrics.js';
import { type SchedulesScheduler, type SchedulesSchedulerOptions, startSchedulesScheduler } from './scheduler.js';
import { createScheduleService } from './service.js';
import { scheduleStatementsFor } from './store/index.js';

// schedules' parts, built once per process by the composition root (services/work.ts): the
// service the routes and MCP call, and the pass loop that fires what is due.

/** A gap between this process's clock and the database's larger than this is logged as a warning. */
export const SKEW_WARN_MS = 2_000;

export interface SchedulesDeps {
  database: Database;
  store: WorkStore;
  /** The work service's create, for the items of occurrences. */
  makeItem: ItemMaker;
  logger: Logger;
  now: () => Date;
  metrics: Registry;
  /** Tests stop the timer and the nudges and run the passes themselves. */
  scheduler?: Pick<SchedulesSchedulerOptions, 'everyMs' | 'nudges'>;
}

export type Schedules = ReturnType<typeof createSchedules>;

export function createSchedules({
  database,
  store,
  makeItem,
  logger,
  now,
  metrics,
  scheduler: options = {},
}: SchedulesDeps) {
  const statementsOn = scheduleStatementsFor(database.dialect);
  const counted = createOccurrenceCounter(metrics);
  const scheduler: SchedulesScheduler = startSchedulesScheduler({
    store,
    top: database.kysely,
    statementsOn,
    makeItem,
    logger,
    counted,
    now,
    ...options,
  });
  const service = createScheduleService({
    store,
    statementsOn,
    top: database.kysely,
    makeItem,
    now,
    nudge: () => scheduler.nudge(),
    counted,
  });
  void measureSkew(database, now, logger);
  return { service, scheduler, close: () => scheduler.stop() };
}

/**
 * This process's clock decides what is due (a test injects one); on PostgreSQL, where other
 * instances share the database, the gap to the database's clock is measured once at start and
 * logged, a warning when it is large enough to fire an occurrence early or late.
 */
async function measureSkew(database: Database, now: () => Date, logger: Logger): Promise<void> {
  if (database.dialect !== 'postgres') return;
  try {
    const before = now().getTime();
    const { rows } = await sql<{ now: string }>`SELECT now() AS now`.execute(database.kysely);
    const skewMs = new Date(rows[0]!.now).getTime() - (before + now().getTime()) / 2;
    const level = Math.abs(skewMs) > SKEW_WARN_MS ? 'warn' : 'info';
    logger[level]({ skew_ms: Math.round(skewMs) }, "schedules: the database's clock against this process's");
  } catch (error) {
    logger.warn({ err: error }, "schedules: could not read the database's clock");
  }
}
