import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { api, connectHttp, refused, use } from '../mcp/helpers.js';

// search_work through the official SDK's client against a real agentdesk process (AUTH=tokens)
// on each store: an agent finds existing work before it submits. Run `npm run build:server` first.

const admin = bearer(ADMIN_SECRET);

describe.each(await storesUnderTest())('search_work on %s', (kind) => {
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

  it('tells the agent to search before it submits, and finds the item with its passage', async () => {
    const { tools } = await bot.listTools();
    const tool = tools.find((t) => t.name === 'search_work')!;
    expect(tool.description).toMatch(/before you submit/i);
    expect(tool.annotations).toMatchObject({ readOnlyHint: true });

    const created = await api(desk.url, 'POST', '/work', admin, {
      type: 'billing',
      description: 'Chase invoice 7731 from Acme',
    });
    expect(created.status).toBe(201);
    await api(desk.url, 'POST', '/work', admin, { type: 'billing', description: 'Pay the electricity bill' });
    const found = await use(bot, 'search_work', { q: 'invoice 7731 type:billing' });
    expect(found.next_cursor).toBeNull();
    expect(found.results).toHaveLength(1);
    expect(found.results[0]).toMatchObject({
      item: { id: created.body.id, status: 'queued' },
      matched_in: ['description'],
      highlight: { field: 'description', html: 'Chase <mark>invoice</mark> <mark>7731</mark> from Acme' },
    });
    expect(await refused(bot, 'search_work', { q: 'status:lost' })).toMatch(/status/);
  });
});
