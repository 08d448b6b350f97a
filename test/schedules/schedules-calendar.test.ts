import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type ScheduleDesk, createSchedule, fireThrough, itemsOf, startScheduleDesk } from './schedules-support.js';

// Calendar rhythms through HTTP on both stores: midnight on the 31st in Berlin runs in the seven
// months that have one and no other, and @weekly in New York runs at Sunday midnight local
// time on each side of the March change.

describe.each(await storesUnderTest())('calendar schedules on %s', (kind) => {
  let testDatabase: TestDatabase;
  let desk: ScheduleDesk;
  const clock = createTestClock(Date.parse('2027-01-10T12:00:00.000Z'));

  beforeAll(async () => {
    testDatabase = await createTestDatabase(kind);
    desk = await startScheduleDesk(testDatabase, clock);
  });
  afterAll(async () => {
    await desk?.close();
    await testDatabase?.destroy();
  });

  it('00:00 on the 31st runs in the seven months that have one, at local midnight', async () => {
    const monthly = await createSchedule(desk, {
      name: 'month end',
      cron: '0 0 31 * *',
      tz: 'Europe/Berlin',
      item: { type: 'close', description: 'Close the month' },
    });
    await fireThrough(desk, clock, monthly.id, '2027-12-31T12:00:00.000Z');
    expect((await itemsOf(desk, monthly.id)).map((item) => item.occurrence_at)).toEqual([
      '2027-01-30T23:00:00.000Z',
      '2027-03-30T22:00:00.000Z',
      '2027-05-30T22:00:00.000Z',
      '2027-07-30T22:00:00.000Z',
      '2027-08-30T22:00:00.000Z',
      '2027-10-30T22:00:00.000Z',
      '2027-12-30T23:00:00.000Z',
    ]);
    expect((await call(desk.app, 'DELETE', `/schedules/${monthly.id}`, undefined, desk.member)).status).toBe(204);
  });

  it('@weekly runs at Sunday midnight in New York, on each side of the March change', async () => {
    clock.setTo(Date.parse('2028-02-20T12:00:00.000Z'));
    const weekly = await createSchedule(desk, {
      name: 'weekly review',
      cron: '@weekly',
      tz: 'America/New_York',
      item: { type: 'review', description: 'Review open pull requests' },
      ends_at: '2028-03-20T00:00:00Z',
    });
    await fireThrough(desk, clock, weekly.id, '2028-03-20T00:00:00.000Z');
    expect((await itemsOf(desk, weekly.id)).map((item) => item.occurrence_at)).toEqual([
      '2028-02-27T05:00:00.000Z',
      '2028-03-05T05:00:00.000Z',
      '2028-03-12T05:00:00.000Z',
      '2028-03-19T04:00:00.000Z',
    ]);
    const after = await call(desk.app, 'GET', `/schedules/${weekly.id}`, undefined, desk.member);
    expect(after.body.next_run_at).toBeNull();
  });
});
