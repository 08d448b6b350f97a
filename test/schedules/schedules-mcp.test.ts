import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { parsePrometheus } from '../support/prometheus.js';
import { api, connectHttp, refused, use } from '../mcp/helpers.js';

// Schedules over MCP with the official SDK client, and their metric: an agent lists schedules
// but is not offered create_schedule, and is told plainly to ask a person when it calls it; a
// member creates one; each occurrence is counted by schedule and outcome on /metrics.

const admin = bearer(ADMIN_SECRET);
const schedule = (name: string) => ({
  name,
  cron: '30 8 * * 1-5',
  tz: 'Europe/Berlin',
  item: { type: 'triage', description: 'Triage the inbox' },
});

describe.each(await storesUnderTest())('schedules over MCP on %s', (kind) => {
  let desk: TestApp;
  let base: string;
  let agent: Client;
  let member: Client;

  beforeAll(async () => {
    desk = await startWorkApp(kind, AUTH_ENV);
    await desk.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(desk.app.server.address() as AddressInfo).port}`;
    agent = await connectHttp(base, bearer((await mintToken(desk.app, { role: 'agent', agent: 'ada' })).token));
    member = await connectHttp(base, bearer((await mintToken(desk.app, { role: 'member', name: 'mia' })).token));
  });
  afterAll(async () => {
    await Promise.all([agent, member].map((client) => client?.close()));
    await desk?.close();
  });

  it('an agent lists schedules and is refused create_schedule with the next step; a member creates one', async () => {
    const agentTools = (await agent.listTools()).tools.map((tool) => tool.name);
    expect(agentTools).toContain('list_schedules');
    expect(agentTools).not.toContain('create_schedule');
    expect((await member.listTools()).tools.map((tool) => tool.name)).toContain('create_schedule');

    const text = await refused(agent, 'create_schedule', schedule('by an agent'));
    expect(text).toContain('Schedules are set up by people (members and admins)');
    expect(text).toContain('list_schedules');

    const created = await use(member, 'create_schedule', schedule('weekday triage'));
    expect(created).toMatchObject({ name: 'weekday triage', created_by: 'mia', enabled: true });
    const { schedules } = await use(agent, 'list_schedules', { enabled: 'true' });
    expect(schedules.map((s: { name: string }) => s.name)).toEqual(['weekday triage']);
  });

  it('counts occurrences by schedule and outcome', async () => {
    const created = await api(base, 'POST', '/schedules', admin, schedule('counted'));
    expect(created.status).toBe(201);
    expect((await api(base, 'POST', `/schedules/${created.body.id}/run`, admin)).status).toBe(201);
    const metrics = await desk.app.inject({ method: 'GET', url: '/metrics', headers: admin });
    expect(
      parsePrometheus(metrics.body).value('agentdesk_schedule_occurrences_total', {
        schedule_id: created.body.id,
        schedule: 'counted',
        outcome: 'run_now',
      }),
    ).toBe(1);
  });
});
