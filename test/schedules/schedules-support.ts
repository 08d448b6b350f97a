import { expect } from 'vitest';
import type { Schedules } from '../../src/schedules/index.js';
import { buildWorkApp } from '../../src/services/work.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { captureLogs, testConfig } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import type { TestClock } from '../support/clock.js';
import { type TestDatabase, openTestDatabase } from '../support/databases.js';
import { call } from '../support/http.js';

// What the schedules' tests share: a work app on a given database whose firing pass runs only
// when the test says (no timer, no nudges), at the test's clock; a member who sets schedules up.

/** A timer that never fires within a test. */
const NO_TIMER_MS = 2 ** 30;

export interface ScheduleDesk {
  app: HttpApp;
  database: Database;
  schedules: Schedules;
  member: Record<string, string>;
  close(): Promise<void>;
}

export const admin = bearer(ADMIN_SECRET);

export async function startScheduleDesk(
  testDatabase: TestDatabase,
  clock: Pick<TestClock, 'now'>,
): Promise<ScheduleDesk> {
  let schedules: Schedules | undefined;
  const database = await openTestDatabase(testDatabase);
  const app = await buildWorkApp({
    config: testConfig(testDatabase, AUTH_ENV),
    database,
    logger: captureLogs('info').logger,
    now: clock.now,
    sweepEveryMs: NO_TIMER_MS,
    schedules: { everyMs: NO_TIMER_MS, nudges: false },
    onSchedules: (built) => (schedules = built),
  });
  await app.ready();
  if (!schedules) throw new Error('the schedules were not built');
  const member = bearer((await mintToken(app, { role: 'member', name: 'mia' })).token);
  return {
    app,
    database,
    schedules,
    member,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/** Creates a schedule as the member; its body. */
export async function createSchedule(desk: ScheduleDesk, body: Record<string, unknown>): Promise<any> {
  const created = await call(desk.app, 'POST', '/schedules', body, desk.member);
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** The items a schedule made, oldest occurrence first, with their occurrence time. */
export async function itemsOf(
  desk: ScheduleDesk,
  scheduleId: string,
): Promise<{ id: string; occurrence_at: string; item: any }[]> {
  const rows = await desk.database.kysely
    .selectFrom('work_items')
    .select(['id', 'payload'])
    .where('payload', 'like', `%${scheduleId}%`)
    .execute();
  const items = rows.map((row) => {
    const payload = JSON.parse(row.payload as string) as { schedule: { occurrence_at: string } };
    return { id: row.id, occurrence_at: payload.schedule.occurrence_at, item: payload };
  });
  return items.sort((a, b) => (a.occurrence_at < b.occurrence_at ? -1 : 1));
}

/**
 * Runs the passes a live desk would around each occurrence until `until`: the clock jumps to the
 * schedule's next run plus `lateMs` and a pass fires; the occurrences it reached, in order.
 */
export async function fireThrough(
  desk: ScheduleDesk,
  clock: TestClock,
  scheduleId: string,
  until: string,
  lateMs = 5_000,
): Promise<void> {
  for (;;) {
    const schedule = await call(desk.app, 'GET', `/schedules/${scheduleId}`, undefined, admin);
    expect(schedule.status, schedule.text).toBe(200);
    const next = schedule.body.next_run_at as string | null;
    if (next === null || next > until) return;
    clock.setTo(Math.max(clock.now().getTime(), Date.parse(next) + lateMs));
    await desk.schedules.scheduler.runOnce();
  }
}
