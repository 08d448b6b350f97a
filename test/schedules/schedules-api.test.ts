import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type ScheduleDesk, admin, createSchedule, itemsOf, startScheduleDesk } from './schedules-support.js';

// The schedules' API on both stores: each bad field's 422 names the field (a huge cron refused by
// its length before parsing), names unique per project (409), filters, preview, PATCH, DELETE,
// and a deleted project's schedules, which go with it.

const START = Date.parse('2027-06-01T04:00:00.000Z');
const base = (extra: Record<string, unknown> = {}) => ({
  name: `s-${Math.random().toString(36).slice(2, 8)}`,
  cron: '30 8 * * 1-5',
  tz: 'Europe/Berlin',
  item: { type: 'triage', description: 'Triage the inbox' },
  ...extra,
});

describe.each(await storesUnderTest())('the schedules API on %s', (kind) => {
  let testDatabase: TestDatabase;
  let desk: ScheduleDesk;
  const clock = createTestClock(START);

  beforeAll(async () => {
    testDatabase = await createTestDatabase(kind);
    desk = await startScheduleDesk(testDatabase, clock);
  });
  afterAll(async () => {
    await desk?.close();
    await testDatabase?.destroy();
  });

  async function refused(body: Record<string, unknown>, field: string): Promise<string> {
    const response = await call(desk.app, 'POST', '/schedules', body, desk.member);
    expect(response.status, response.text).toBe(422);
    const fields = (response.body.errors as { field: string; message: string }[]).map((error) => error.field);
    expect(fields).toContain(field);
    return response.body.detail as string;
  }

  it('creates "every weekday at 08:30 in Berlin" with its next run in UTC and in Berlin', async () => {
    const created = await call(desk.app, 'POST', '/schedules', base({ name: 'Triage' }), desk.member);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.location).toBe(`/schedules/${created.body.id}`);
    expect(created.body).toMatchObject({
      name: 'Triage',
      cron: '30 8 * * 1-5',
      tz: 'Europe/Berlin',
      project_id: null,
      missed: 'skip',
      max_catchup: 100,
      overlap: 'allow',
      enabled: true,
      next_run_at: '2027-06-01T06:30:00.000Z',
      next_run_local: '2027-06-01T08:30:00+02:00',
      last_run_at: null,
      created_by: 'mia',
      version: 1,
    });
  });

  it('refuses each bad field with a 422 that names it', async () => {
    expect(await refused(base({ cron: '61 * * * *' }), 'cron')).toContain('Invalid value for minute');
    expect(await refused(base({ cron: '0 0 * * * *' }), 'cron')).toContain('5 parts');
    expect(await refused(base({ cron: '@yearly' }), 'cron')).toContain('@hourly');
    expect(await refused(base({ cron: '0 0 30 2 *' }), 'cron')).toContain('matches no date');
    await refused(base({ cron: '*'.repeat(10_000) }), 'cron');
    expect(await refused(base({ tz: 'Mars/Olympus' }), 'tz')).toContain('IANA');
    await refused(base({ max_catchup: 0 }), 'max_catchup');
    await refused(base({ max_catchup: 1001 }), 'max_catchup');
    await refused(base({ missed: 'sometimes' }), 'missed');
    await refused(base({ starts_at: '2027-07-01T00:00:00Z', ends_at: '2027-06-01T00:00:00Z' }), 'ends_at');
    await refused(base({ item: { type: 'triage' } }), 'item.description');
    const big = { type: 'triage', description: 'x', payload: { text: 'x'.repeat(64 * 1024) } };
    expect(await refused(base({ item: big }), 'item.payload')).toContain('payload.schedule');
    await refused(
      base({ item: { type: 'triage', description: 'x', project_id: crypto.randomUUID() } }),
      'item.project_id',
    );
  });

  it('a 10,000-character cron is refused by its length, before croner reads it', async () => {
    const response = await call(desk.app, 'POST', '/schedules', base({ cron: '1 '.repeat(5_000) }), desk.member);
    expect(response.status).toBe(422);
    expect(response.body.errors[0].field).toBe('cron');
    expect(response.body.errors[0].message).toMatch(/200/);
  });

  it('names are unique per project, ignoring case; the same name in another project is fine', async () => {
    const project = await call(desk.app, 'POST', '/projects', { name: 'billing' }, admin);
    await createSchedule(desk, base({ name: 'Invoices' }));
    const again = await call(desk.app, 'POST', '/schedules', base({ name: 'invoices' }), desk.member);
    expect(again.status, again.text).toBe(409);
    const elsewhere = base({ name: 'Invoices', item: { type: 'x', description: 'y', project_id: project.body.id } });
    const other = await createSchedule(desk, elsewhere);
    expect(other.project_id).toBe(project.body.id);
    const renamed = await call(
      desk.app,
      'PATCH',
      `/schedules/${other.id}`,
      { item: { type: 'x', description: 'y' } },
      desk.member,
    );
    expect(renamed.status, renamed.text).toBe(409);
  });

  it('lists by name, filtered by project and enabled; unknown query parameters are 422', async () => {
    const project = await call(desk.app, 'POST', '/projects', { name: 'ops' }, admin);
    const inProject = await createSchedule(
      desk,
      base({
        name: 'ops daily',
        enabled: false,
        item: { type: 'ops', description: 'ops', project_id: project.body.id },
      }),
    );
    const byProject = await call(desk.app, 'GET', `/schedules?project_id=${project.body.id}`, undefined, desk.member);
    expect(byProject.body.map((s: { id: string }) => s.id)).toEqual([inProject.id]);
    const disabled = await call(desk.app, 'GET', '/schedules?enabled=false', undefined, desk.member);
    expect(disabled.body.map((s: { id: string }) => s.id)).toEqual([inProject.id]);
    const all = await call(desk.app, 'GET', '/schedules', undefined, desk.member);
    const names = all.body.map((s: { name: string }) => s.name);
    expect(names).toEqual([...names].sort());
    expect((await call(desk.app, 'GET', '/schedules?colour=red', undefined, desk.member)).status).toBe(422);
  });

  it('previews the next five runs in UTC and local without saving; a bad zone is a 422', async () => {
    const preview = await call(
      desk.app,
      'GET',
      '/schedules/preview?cron=0%200%2031%20*%20*&tz=Europe%2FBerlin&starts_at=2027-07-01T00:00:00Z',
      undefined,
      desk.member,
    );
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.runs.map((run: { local: string }) => run.local)).toEqual([
      '2027-07-31T00:00:00+02:00',
      '2027-08-31T00:00:00+02:00',
      '2027-10-31T00:00:00+02:00',
      '2027-12-31T00:00:00+01:00',
      '2028-01-31T00:00:00+01:00',
    ]);
    expect(preview.body.runs[0].at).toBe('2027-07-30T22:00:00.000Z');
    const bad = await call(desk.app, 'GET', '/schedules/preview?cron=%40daily&tz=Nowhere', undefined, desk.member);
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('tz');
  });

  it('PATCH changes the rhythm from the time of the edit and bumps the version; DELETE is 204, then 404', async () => {
    const schedule = await createSchedule(desk, base());
    const patched = await call(
      desk.app,
      'PATCH',
      `/schedules/${schedule.id}`,
      { cron: '@daily', tz: 'Asia/Tokyo' },
      desk.member,
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      version: 2,
      next_run_at: '2027-06-01T15:00:00.000Z',
      next_run_local: '2027-06-02T00:00:00+09:00',
    });
    const badTz = await call(desk.app, 'PATCH', `/schedules/${schedule.id}`, { tz: 'Atlantis' }, desk.member);
    expect(badTz.status).toBe(422);
    expect((await call(desk.app, 'PATCH', `/schedules/${schedule.id}`, {}, desk.member)).status).toBe(422);
    expect((await call(desk.app, 'DELETE', `/schedules/${schedule.id}`, undefined, desk.member)).status).toBe(204);
    expect((await call(desk.app, 'GET', `/schedules/${schedule.id}`, undefined, desk.member)).status).toBe(404);
    expect((await call(desk.app, 'DELETE', `/schedules/${schedule.id}`, undefined, desk.member)).status).toBe(404);
  });

  it('agents read schedules and may not create them', async () => {
    const agent = (await call(desk.app, 'POST', '/tokens', { name: 'ada', role: 'agent', agent: 'ada' }, admin)).body
      .token;
    const headers = { authorization: `Bearer ${agent}` };
    expect((await call(desk.app, 'GET', '/schedules', undefined, headers)).status).toBe(200);
    expect((await call(desk.app, 'POST', '/schedules', base(), headers)).status).toBe(403);
  });

  it('an item the work service refuses at firing time disables the schedule and says why', async () => {
    clock.setTo(Date.parse('2027-06-01T10:30:00.000Z'));
    const schedule = await createSchedule(desk, base({ name: 'tampered', cron: '@hourly' }));
    // An operator's SQL writes a template the work service refuses (a payload over its limit).
    const item = JSON.stringify({ type: 't', description: 't', payload: { text: 'x'.repeat(70_000) } });
    await desk.database.kysely.updateTable('schedules').set({ item }).where('id', '=', schedule.id).execute();
    clock.setTo(Date.parse('2027-06-01T11:00:05.000Z'));
    expect(await desk.schedules.scheduler.runOnce()).toMatchObject({ made: 0, failed: 1 });
    const page = await call(desk.app, 'GET', `/schedules/${schedule.id}`, undefined, desk.member);
    expect(page.body).toMatchObject({ enabled: false });
    expect(page.body.disabled_reason).toContain('could not make the item: payload');
    expect(page.body.occurrences).toEqual([
      expect.objectContaining({ occurrence_at: '2027-06-01T11:00:00.000Z', outcome: 'failed', work_item_id: null }),
    ]);
    expect(await itemsOf(desk, schedule.id)).toEqual([]);
    await call(desk.app, 'DELETE', `/schedules/${schedule.id}`, undefined, desk.member);
  });

  it('a deleted project takes its schedules with it; the items they made stay', async () => {
    const project = await call(desk.app, 'POST', '/projects', { name: 'doomed' }, admin);
    const schedule = await createSchedule(
      desk,
      base({
        name: 'doomed hourly',
        cron: '@hourly',
        item: { type: 'd', description: 'd', project_id: project.body.id },
      }),
    );
    clock.setTo(Date.parse('2027-06-01T12:00:05.000Z'));
    await desk.schedules.scheduler.runOnce();
    const [made] = await itemsOf(desk, schedule.id);
    expect(made).toBeDefined();
    // No route deletes a project: an operator's SQL does.
    await desk.database.kysely.deleteFrom('projects').where('id', '=', project.body.id).execute();
    expect((await call(desk.app, 'GET', `/schedules/${schedule.id}`, undefined, desk.member)).status).toBe(404);
    clock.setTo(Date.parse('2027-06-01T13:00:05.000Z'));
    await desk.schedules.scheduler.runOnce();
    expect(await itemsOf(desk, schedule.id)).toHaveLength(1);
    const item = await call(desk.app, 'GET', `/work/${made!.id}`, undefined, admin);
    expect(item.body.project_id).toBeNull();
    const again = await call(
      desk.app,
      'POST',
      '/schedules',
      base({ item: { type: 'd', description: 'd', project_id: project.body.id } }),
      desk.member,
    );
    expect(again.status).toBe(422);
    expect(again.body.errors[0].field).toBe('item.project_id');
  });
});
