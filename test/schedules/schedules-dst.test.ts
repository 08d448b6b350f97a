import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type ScheduleDesk, createSchedule, fireThrough, itemsOf, startScheduleDesk } from './schedules-support.js';

// Daily schedules in Berlin and New York across both daylight-saving changes of 2027, on both
// stores: each occurrence once, at the right UTC instant (a time in the spring gap at the first
// valid time after it; a time that occurs twice in the autumn at its first instant only).

describe.each(await storesUnderTest())('schedules across daylight saving on %s', (kind) => {
  let testDatabase: TestDatabase;
  let desk: ScheduleDesk;
  const clock = createTestClock(Date.parse('2027-03-12T12:00:00.000Z'));

  beforeAll(async () => {
    testDatabase = await createTestDatabase(kind);
    desk = await startScheduleDesk(testDatabase, clock);
  });
  afterAll(async () => {
    await desk?.close();
    await testDatabase?.destroy();
  });

  async function daily(name: string, cron: string, tz: string, until: string): Promise<string[]> {
    const schedule = await createSchedule(desk, { name, cron, tz, item: { type: 'dst', description: name } });
    await fireThrough(desk, clock, schedule.id, until);
    const made = await itemsOf(desk, schedule.id);
    const removed = await call(desk.app, 'DELETE', `/schedules/${schedule.id}`, undefined, desk.member);
    expect(removed.status).toBe(204);
    return made.map((item) => item.occurrence_at);
  }

  it('New York, spring forward (2027-03-14): 02:30 does not exist and runs at 03:00 EDT, once', async () => {
    const schedule = await createSchedule(desk, {
      name: 'ny spring preview',
      cron: '30 2 * * *',
      tz: 'America/New_York',
      item: { type: 'dst', description: 'preview' },
      enabled: false,
    });
    expect(schedule.next_run_at).toBe('2027-03-13T07:30:00.000Z');
    expect(schedule.next_run_local).toBe('2027-03-13T02:30:00-05:00');
    await call(desk.app, 'DELETE', `/schedules/${schedule.id}`, undefined, desk.member);
    expect(await daily('ny spring', '30 2 * * *', 'America/New_York', '2027-03-15T12:00:00.000Z')).toEqual([
      '2027-03-13T07:30:00.000Z',
      '2027-03-14T07:00:00.000Z',
      '2027-03-15T06:30:00.000Z',
    ]);
  });

  it('Berlin, spring forward (2027-03-28): 02:30 runs at 03:00 CEST (01:00Z), once', async () => {
    clock.setTo(Date.parse('2027-03-26T12:00:00.000Z'));
    expect(await daily('berlin spring', '30 2 * * *', 'Europe/Berlin', '2027-03-30T12:00:00.000Z')).toEqual([
      '2027-03-27T01:30:00.000Z',
      '2027-03-28T01:00:00.000Z',
      '2027-03-29T00:30:00.000Z',
      '2027-03-30T00:30:00.000Z',
    ]);
  });

  it('Berlin, fall back (2027-10-31): 02:30 occurs twice and runs once, at 02:30 CEST (00:30Z)', async () => {
    clock.setTo(Date.parse('2027-10-29T12:00:00.000Z'));
    expect(await daily('berlin fall', '30 2 * * *', 'Europe/Berlin', '2027-11-01T12:00:00.000Z')).toEqual([
      '2027-10-30T00:30:00.000Z',
      '2027-10-31T00:30:00.000Z',
      '2027-11-01T01:30:00.000Z',
    ]);
  });

  it('New York, fall back (2027-11-07): 01:30 occurs twice and runs once, at 01:30 EDT (05:30Z)', async () => {
    clock.setTo(Date.parse('2027-11-05T12:00:00.000Z'));
    expect(await daily('ny fall', '30 1 * * *', 'America/New_York', '2027-11-08T12:00:00.000Z')).toEqual([
      '2027-11-06T05:30:00.000Z',
      '2027-11-07T05:30:00.000Z',
      '2027-11-08T06:30:00.000Z',
    ]);
  });

  it('the page of a weekday schedule shows its next five runs in UTC and in its zone', async () => {
    clock.setTo(Date.parse('2027-11-08T12:00:00.000Z'));
    const schedule = await createSchedule(desk, {
      name: 'berlin page',
      cron: '0 8 * * 1-5',
      tz: 'Europe/Berlin',
      item: { type: 'dst', description: 'weekday mornings' },
      enabled: false,
    });
    const page = await call(desk.app, 'GET', `/schedules/${schedule.id}`, undefined, desk.member);
    expect(page.status, page.text).toBe(200);
    expect(page.body.next_runs.map((run: { local: string }) => run.local)).toEqual([
      '2027-11-09T08:00:00+01:00',
      '2027-11-10T08:00:00+01:00',
      '2027-11-11T08:00:00+01:00',
      '2027-11-12T08:00:00+01:00',
      '2027-11-15T08:00:00+01:00',
    ]);
    expect(page.body.next_runs[0].at).toBe('2027-11-09T07:00:00.000Z');
    expect(page.body.occurrences).toEqual([]);
  });
});
