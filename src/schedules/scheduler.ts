import type { Logger } from 'pino';
import { type FiringDeps, type FiringResult, fireDue } from './firing.js';

// The schedules' pass loop: every SCHEDULES_EVERY_MS, and soon after a write that may have made
// a schedule due (a nudge), it fires what is due at the clock's time. Passes never overlap in
// one process; across instances the leases and the occurrences' key keep each occurrence to one.

export const SCHEDULES_EVERY_MS = 15_000;

export interface SchedulesSchedulerOptions extends FiringDeps {
  now: () => Date;
  logger: Logger;
  everyMs?: number;
  /** False in tests that run every pass themselves: a write then starts none. */
  nudges?: boolean;
}

export interface SchedulesScheduler {
  /** One pass at the clock's time, after any pass under way. */
  runOnce(): Promise<FiringResult>;
  /** A pass soon (one, however many nudges come before it starts). */
  nudge(): void;
  stop(): Promise<void>;
}

export function startSchedulesScheduler({
  now,
  logger,
  everyMs = SCHEDULES_EVERY_MS,
  nudges = true,
  ...deps
}: SchedulesSchedulerOptions): SchedulesScheduler {
  let stopped = false;
  let nudged = false;
  let current: Promise<unknown> = Promise.resolve();

  async function pass(): Promise<FiringResult> {
    if (stopped) return { made: 0, skipped_overlap: 0, missed: 0, failed: 0 };
    return fireDue({ ...deps, logger }, now());
  }

  function runOnce(): Promise<FiringResult> {
    const next = current.then(pass);
    current = next.catch(() => undefined);
    return next;
  }

  function background(): void {
    runOnce().catch((error: unknown) => {
      if (stopped) logger.debug({ err: error }, 'schedules pass ended by the stop');
      else logger.error({ err: error }, 'schedules pass failed');
    });
  }

  const timer = setInterval(background, everyMs);
  timer.unref();

  function nudge(): void {
    if (!nudges || nudged || stopped) return;
    nudged = true;
    setImmediate(() => {
      nudged = false;
      background();
    });
  }
  // At start too: after a restart, what came due while the process was down is taken at once.
  nudge();

  return {
    runOnce,
    nudge,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
