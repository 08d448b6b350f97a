import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { api, connectHttp, refused, use } from '../mcp/helpers.js';

// ask_person names the people to tell, through the official SDK's client against a real
// agentdesk process (AUTH=tokens) on each store. Run `npm run build:server` first.

const admin = bearer(ADMIN_SECRET);

describe.each(await storesUnderTest())('ask_person with `to` on %s', (kind) => {
  let database: TestDatabase;
  let desk: ServerProcess;
  let bot: Client;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    desk = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    const minted = await api(desk.url, 'POST', '/tokens', admin, { name: 'bot-1', role: 'agent', agent: 'bot-1' });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    bot = await connectHttp(desk.url, bearer(minted.body.token));
  });

  afterAll(async () => {
    await bot?.close();
    await killAllServers();
    await database?.destroy();
  });

  it('the tool takes `to` (at most 10) and the question shows it', async () => {
    const { tools } = await bot.listTools();
    const ask = tools.find((tool) => tool.name === 'ask_person')!;
    expect(ask.inputSchema.properties).toMatchObject({ to: { maxItems: 10, minItems: 1 } });

    const created = await api(desk.url, 'POST', '/work', admin, { type: 'mcp_to', description: 'who hears' });
    expect(created.status).toBe(201);
    await use(bot, 'claim_next_work', { types: ['mcp_to'], lease_s: 120 });
    const tooMany = Array.from({ length: 11 }, (_, i) => `p${i}`);
    expect(await refused(bot, 'ask_person', { id: created.body.id, question: 'Which?', to: tooMany })).toMatch(/to/);
    const question = await use(bot, 'ask_person', { id: created.body.id, question: 'Which?', to: ['ada'], wait_s: 0 });
    expect(question).toMatchObject({ status: 'open', to: ['ada'] });
  });
});
