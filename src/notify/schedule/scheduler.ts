import type { Logger } from 'pino';
import { type DigestDeps, writeDueDigests } from './digests.js';
import { writeDueEscalations } from './escalations.js';

// notify's scheduler: every minute or so it writes the digests that are due and the escalations
// of questions past their deadline into the outbox, then nudges the sender. Passes never
// overlap in one process; across instances the database's guards keep each mail to one.

/** How often the scheduler looks, unless told otherwise. */
export const SCHEDULE_EVERY_MS = 60_000;

export interface SchedulerOptions extends DigestDeps {
  now: () => Date;
  logger: Logger;
  /** Called after a pass wrote mail: the sender takes it within moments. */
  nudge: () => void;
  everyMs?: number;
}

export interface PassResult {
  digests: number;
  escalations: number;
}

export interface NotifyScheduler {
  /** One pass at the clock's time, after any pass under way: the mails it wrote. */
  runOnce(): Promise<PassResult>;
  stop(): Promise<void>;
}

export function startNotifyScheduler({
  now,
  logger,
  nudge,
  everyMs = SCHEDULE_EVERY_MS,
  ...deps
}: SchedulerOptions): NotifyScheduler {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();

  async function pass(): Promise<PassResult> {
    if (stopped) return { digests: 0, escalations: 0 };
    const at = now();
    const escalations = await writeDueEscalations(deps, at);
    const digests = await writeDueDigests(deps, at);
    if (digests + escalations > 0) nudge();
    return { digests, escalations };
  }

  function runOnce(): Promise<PassResult> {
    const next = current.then(pass);
    current = next.catch(() => undefined);
    return next;
  }

  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => {
      if (stopped) logger.debug({ err: error }, 'notify scheduler pass ended by the stop');
      else logger.error({ err: error }, 'notify scheduler pass failed');
    });
  }, everyMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
