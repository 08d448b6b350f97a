import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type ScheduleDesk, admin, createSchedule, itemsOf, startScheduleDesk } from './schedules-support.js';

// Hourly schedules through downtime on both stores at a test clock: skip lists each missed one,
// once makes the latest, all each (capped: the latest max_catchup); a barely late one is made.
// Overlap skip makes nothing while the previous item is open and says so; allow makes it.

const at = (iso: string) => Date.parse(iso);

describe.each(await storesUnderTest())('missed occurrences and overlap on %s', (kind) => {
  let testDatabase: TestDatabase;
  let desk: ScheduleDesk;
  const clock = createTestClock(at('2027-05-03T09:30:00.000Z'));
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    testDatabase = await createTestDatabase(kind);
    desk = await startScheduleDesk(testDatabase, clock);
  });
  afterAll(async () => {
    await desk?.close();
    await testDatabase?.destroy();
  });

  const hourly = (name: string, extra: Record<string, unknown>, item: Record<string, unknown> = {}) =>
    createSchedule(desk, {
      name,
      cron: '@hourly',
      tz: 'UTC',
      item: { type: 'hourly', description: `the ${name} check`, priority: 2, payload: { source: 'test' }, ...item },
      ...extra,
    });
  const madeAt = async (name: string) =>
    (await itemsOf(desk, ids[name]!)).map((item) => item.occurrence_at.slice(11, 16));
  const occurrences = async (name: string) =>
    (await call(desk.app, 'GET', `/schedules/${ids[name]}`, undefined, desk.member)).body.occurrences as {
      occurrence_at: string;
      outcome: string;
      reason: string | null;
      work_item_id: string | null;
    }[];

  it('each makes the 10:00 occurrence on time, as an item of its template from its creator', async () => {
    for (const [name, extra] of Object.entries({
      skip: { missed: 'skip' },
      once: { missed: 'once' },
      all: { missed: 'all' },
      capped: { missed: 'all', max_catchup: 2 },
    })) {
      ids[name] = (await hourly(name, extra)).id;
    }
    clock.setTo(at('2027-05-03T10:00:05.000Z'));
    expect(await desk.schedules.scheduler.runOnce()).toEqual({ made: 4, skipped_overlap: 0, missed: 0, failed: 0 });
    const [made] = await itemsOf(desk, ids.skip!);
    const item = await call(desk.app, 'GET', `/work/${made!.id}`, undefined, admin);
    expect(item.body).toMatchObject({
      type: 'hourly',
      description: 'the skip check',
      priority: 2,
      created_by: 'mia',
      payload: { source: 'test', schedule: { id: ids.skip, name: 'skip', occurrence_at: '2027-05-03T10:00:00.000Z' } },
    });
    const history = await call(desk.app, 'GET', `/work/${made!.id}/history`, undefined, admin);
    expect(history.body[0]).toMatchObject({ action: 'created', actor: 'mia' });
    // A second pass at the same moment finds nothing due.
    expect(await desk.schedules.scheduler.runOnce()).toEqual({ made: 0, skipped_overlap: 0, missed: 0, failed: 0 });
  });

  it('after three hours down (11:00, 12:00, 13:00 missed), each policy makes what it promises', async () => {
    clock.setTo(at('2027-05-03T13:30:00.000Z'));
    await desk.schedules.scheduler.runOnce();
    expect(await madeAt('skip')).toEqual(['10:00']);
    expect(await madeAt('once')).toEqual(['10:00', '13:00']);
    expect(await madeAt('all')).toEqual(['10:00', '11:00', '12:00', '13:00']);
    expect(await madeAt('capped')).toEqual(['10:00', '12:00', '13:00']);

    const skipped = await occurrences('skip');
    expect(skipped.map((o) => [o.occurrence_at.slice(11, 16), o.outcome])).toEqual([
      ['13:00', 'missed'],
      ['12:00', 'missed'],
      ['11:00', 'missed'],
      ['10:00', 'made'],
    ]);
    expect(skipped[0]!.reason).toContain('more than 60 s late');
    expect(skipped[0]!.work_item_id).toBeNull();
    expect((await occurrences('capped')).find((o) => o.outcome === 'missed')?.reason).toContain('max_catchup (2)');
    const schedule = await call(desk.app, 'GET', `/schedules/${ids.all}`, undefined, desk.member);
    expect(schedule.body).toMatchObject({
      next_run_at: '2027-05-03T14:00:00.000Z',
      next_run_local: '2027-05-03T14:00:00+00:00',
      last_run_at: '2027-05-03T13:00:00.000Z',
    });
  });

  it('an occurrence 50 s late is made whatever the policy', async () => {
    clock.setTo(at('2027-05-03T14:00:50.000Z'));
    await desk.schedules.scheduler.runOnce();
    expect(await madeAt('skip')).toEqual(['10:00', '14:00']);
    for (const name of Object.keys(ids)) {
      const removed = await call(desk.app, 'DELETE', `/schedules/${ids[name]}`, undefined, desk.member);
      expect(removed.status).toBe(204);
    }
    // The items stay when their schedule goes.
    expect(await madeAt('all')).toHaveLength(5);
  });

  it('overlap skip: no item while the previous one is open, and the occurrence says why; allow makes it', async () => {
    clock.setTo(at('2027-05-04T09:30:00.000Z'));
    ids.guarded = (await hourly('guarded', { overlap: 'skip' }, { agent: 'ada' })).id;
    ids.allowed = (await hourly('allowed', { overlap: 'allow' })).id;
    clock.setTo(at('2027-05-04T10:00:05.000Z'));
    expect(await desk.schedules.scheduler.runOnce()).toMatchObject({ made: 2 });
    const [first] = await itemsOf(desk, ids.guarded!);
    // Dispatched to ada, then in progress: not final.
    expect((await call(desk.app, 'PATCH', `/work/${first!.id}`, { status: 'in_progress' }, admin)).status).toBe(200);

    clock.setTo(at('2027-05-04T11:00:05.000Z'));
    expect(await desk.schedules.scheduler.runOnce()).toEqual({ made: 1, skipped_overlap: 1, missed: 0, failed: 0 });
    expect(await madeAt('guarded')).toEqual(['10:00']);
    expect(await madeAt('allowed')).toEqual(['10:00', '11:00']);
    const [latest] = await occurrences('guarded');
    expect(latest).toMatchObject({ outcome: 'skipped_overlap', work_item_id: null });
    expect(latest!.reason).toBe(`the previous occurrence's item ${first!.id} is in_progress`);

    const done = await call(
      desk.app,
      'PATCH',
      `/work/${first!.id}`,
      { status: 'completed', outcome: 'success' },
      admin,
    );
    expect(done.status, done.text).toBe(200);
    clock.setTo(at('2027-05-04T12:00:05.000Z'));
    await desk.schedules.scheduler.runOnce();
    expect(await madeAt('guarded')).toEqual(['10:00', '12:00']);
  });

  it('a schedule disabled for hours and enabled again follows missed for what came due meanwhile', async () => {
    clock.setTo(at('2027-05-04T12:30:00.000Z'));
    ids.paused = (await hourly('paused', { missed: 'once' })).id;
    const off = await call(desk.app, 'PATCH', `/schedules/${ids.paused}`, { enabled: false }, desk.member);
    expect(off.body).toMatchObject({ enabled: false, version: 2 });
    clock.setTo(at('2027-05-04T15:30:00.000Z'));
    await desk.schedules.scheduler.runOnce();
    expect(await madeAt('paused')).toEqual([]);
    const on = await call(desk.app, 'PATCH', `/schedules/${ids.paused}`, { enabled: true }, desk.member);
    expect(on.body).toMatchObject({ enabled: true, next_run_at: '2027-05-04T13:00:00.000Z' });
    await desk.schedules.scheduler.runOnce();
    expect(await madeAt('paused')).toEqual(['15:00']);
    expect((await occurrences('paused')).map((o) => o.outcome)).toEqual(['made', 'missed', 'missed']);
    await call(desk.app, 'DELETE', `/schedules/${ids.paused}`, undefined, desk.member);
  });

  it('run now makes one item at once, outside the rhythm, and the occurrence list says so', async () => {
    await call(desk.app, 'DELETE', `/schedules/${ids.allowed}`, undefined, desk.member);
    const run = await call(desk.app, 'POST', `/schedules/${ids.guarded}/run`, undefined, desk.member);
    expect(run.status, run.text).toBe(201);
    expect(run.body.occurrence).toMatchObject({
      occurrence_at: '2027-05-04T15:30:00.000Z',
      occurrence_local: '2027-05-04T15:30:00+00:00',
      outcome: 'run_now',
      work_item_id: run.body.work_item_id,
    });
    expect((await madeAt('guarded')).at(-1)).toBe('15:30');
    const schedule = await call(desk.app, 'GET', `/schedules/${ids.guarded}`, undefined, desk.member);
    expect(schedule.body.next_run_at).toBe('2027-05-04T16:00:00.000Z');
    expect(schedule.body.last_run_at).toBe('2027-05-04T15:30:00.000Z');
  });
});
