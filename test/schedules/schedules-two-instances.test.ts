import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ScheduleDesk, createSchedule, itemsOf, startScheduleDesk } from './schedules-support.js';

// Two instances on one PostgreSQL, each with its own firing pass, passing at the same moments:
// a schedule due every minute, for 100 minutes, makes 100 items and no duplicate, whichever
// instance takes each minute (the lease under FOR UPDATE SKIP LOCKED, then the occurrences' key).

const stores = await storesUnderTest();
const MINUTE = 60_000;
const START = Date.parse('2027-09-01T07:59:30.000Z');

describe.skipIf(!stores.includes('postgres'))('two instances firing on one PostgreSQL', () => {
  let testDatabase: TestDatabase;
  let desks: ScheduleDesk[] = [];
  const clock = createTestClock(START);

  beforeAll(async () => {
    testDatabase = await createTestDatabase('postgres');
    desks = [await startScheduleDesk(testDatabase, clock), await startScheduleDesk(testDatabase, clock)];
  });
  afterAll(async () => {
    for (const desk of desks) await desk.close();
    await testDatabase?.destroy();
  });

  it('the same minute, fired by both 100 times, makes 100 items and no duplicate', async () => {
    const [a, b] = desks as [ScheduleDesk, ScheduleDesk];
    const schedule = await createSchedule(a, {
      name: 'every minute',
      cron: '* * * * *',
      tz: 'Europe/Berlin',
      item: { type: 'tick', description: 'a minute passed' },
    });
    let made = 0;
    for (let minute = 1; minute <= 100; minute += 1) {
      clock.setTo(START + 30_000 + (minute - 1) * MINUTE + 2_000);
      const passes = await Promise.all([
        a.schedules.scheduler.runOnce(),
        b.schedules.scheduler.runOnce(),
        b.schedules.scheduler.runOnce(),
        a.schedules.scheduler.runOnce(),
      ]);
      made += passes.reduce((sum, pass) => sum + pass.made, 0);
    }
    expect(made).toBe(100);
    const items = await itemsOf(a, schedule.id);
    expect(items).toHaveLength(100);
    expect(new Set(items.map((item) => item.occurrence_at)).size).toBe(100);
    expect(items[0]!.occurrence_at).toBe('2027-09-01T08:00:00.000Z');
    expect(items[99]!.occurrence_at).toBe('2027-09-01T09:39:00.000Z');
  });
});
