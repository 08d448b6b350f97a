import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/client/errors.js';
import { createInjectFetch } from '../../src/client/inject-fetch.js';
import { type WorkClient, createWorkClient } from '../../src/client/work-client.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';

// The typed client's schedule calls against a real work app on each store: a member manages a
// schedule end to end; an agent reads and previews but is refused changes.

const BASE = 'http://agentdesk.test';

describe.each(await storesUnderTest())('the schedule calls on %s', (kind) => {
  let desk: TestApp;
  let member: WorkClient;
  let agent: WorkClient;

  beforeAll(async () => {
    desk = await startWorkApp(kind, AUTH_ENV);
    const fetch = createInjectFetch(desk.app);
    const token = async (role: 'member' | 'agent', name: string) =>
      (await mintToken(desk.app, role === 'agent' ? { role, agent: name, name } : { role, name })).token;
    member = createWorkClient({ baseUrl: BASE, token: await token('member', 'mia'), fetch });
    agent = createWorkClient({ baseUrl: BASE, token: await token('agent', 'ada'), fetch });
  });
  afterAll(async () => desk?.close());

  it('preview, create, list, get, update, run, delete', async () => {
    const preview = await member.previewSchedule({ cron: '30 8 * * 1-5', tz: 'Europe/Berlin' });
    expect(preview.runs).toHaveLength(5);
    expect(preview.runs[0]!.local).toMatch(/T08:30:00[+-]\d\d:\d\d$/);

    const created = await member.createSchedule({
      name: 'Triage',
      cron: '30 8 * * 1-5',
      tz: 'Europe/Berlin',
      item: { type: 'triage', description: 'Triage the inbox' },
    });
    expect(created).toMatchObject({ name: 'Triage', enabled: true, created_by: 'mia' });
    expect(created.next_run_at).toBe(preview.runs[0]!.at);

    expect((await agent.listSchedules()).map((s) => s.id)).toEqual([created.id]);
    expect(await member.listSchedules({ enabled: 'false' })).toEqual([]);

    const updated = await member.updateSchedule(created.id, { enabled: false, overlap: 'skip' });
    expect(updated).toMatchObject({ enabled: false, overlap: 'skip' });
    expect((await member.listSchedules({ enabled: 'false' })).map((s) => s.id)).toEqual([created.id]);

    const ran = await member.runSchedule(created.id);
    expect(ran.occurrence.outcome).toBe('run_now');
    const item = await member.getWork(ran.work_item_id);
    expect(item.payload).toMatchObject({ schedule: { id: created.id, name: 'Triage' } });

    const detail = await agent.getSchedule(created.id);
    expect(detail.next_runs).toHaveLength(5);
    expect(detail.occurrences.map((o) => o.work_item_id)).toEqual([ran.work_item_id]);

    await member.deleteSchedule(created.id);
    const gone = await member.getSchedule(created.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ProblemError);
    expect((gone as ProblemError).status).toBe(404);
  });

  it('a bad expression is a 422 naming cron; an agent may not create, change or run', async () => {
    const bad = (await member
      .previewSchedule({ cron: '61 8 * * *', tz: 'UTC' })
      .catch((e: unknown) => e)) as ProblemError;
    expect(bad).toBeInstanceOf(ProblemError);
    expect(bad.status).toBe(422);
    expect(bad.errors?.map((e) => e.field)).toContain('cron');

    const body = { name: 'Agents may not', cron: '@daily', tz: 'UTC', item: { type: 't', description: 'd' } };
    const refused = (await agent.createSchedule(body).catch((e: unknown) => e)) as ProblemError;
    expect(refused.status).toBe(403);
    const mine = await member.createSchedule(body);
    expect(((await agent.runSchedule(mine.id).catch((e: unknown) => e)) as ProblemError).status).toBe(403);
    expect(((await agent.deleteSchedule(mine.id).catch((e: unknown) => e)) as ProblemError).status).toBe(403);
    const admin = createWorkClient({ baseUrl: BASE, token: ADMIN_SECRET, fetch: createInjectFetch(desk.app) });
    await admin.deleteSchedule(mine.id);
  });
});
