import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, freePort, killAllServers, startWorkServer } from '../support/processes.js';
import { api, refused, use } from './helpers.js';

// `agentdesk mcp` as an MCP host runs it: the official SDK's client spawns the CLI binary and
// speaks MCP over its stdin/stdout; the CLI talks to a real agentdesk process over HTTP.
// Run `npm run build:server` first.

const CLI_JS = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const admin = bearer(ADMIN_SECRET);
const clients: Client[] = [];

/** `agentdesk mcp` with exactly these variables (and PATH), as a host's config would set them. */
async function spawnMcp(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'agentdesk-stdio-tests', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI_JS, 'mcp'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await killAllServers();
});

describe.each(await storesUnderTest())('agentdesk mcp (stdio) on %s', (kind) => {
  let database: TestDatabase;
  let desk: ServerProcess;
  let bot1: Client;
  let bot2: Client;

  async function mint(agent: string): Promise<string> {
    const created = await api(desk.url, 'POST', '/tokens', admin, { name: agent, role: 'agent', agent });
    expect(created.status).toBe(201);
    return created.body.token;
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    desk = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    bot1 = await spawnMcp({ AGENTDESK_URL: desk.url, AGENTDESK_TOKEN: await mint('stdio-1') });
    bot2 = await spawnMcp({ AGENTDESK_URL: desk.url, AGENTDESK_TOKEN: await mint('stdio-2') });
  });
  afterAll(async () => {
    await desk?.stop();
    await database?.destroy();
  });

  it('lists the tools and runs claim → heartbeat → complete, then a refused move', async () => {
    expect((await bot1.listTools()).tools).toHaveLength(19);
    const item = (await api(desk.url, 'POST', '/work', admin, { type: 'stdio_loop', description: 'over stdio' })).body;

    const claimed = await use(bot1, 'claim_next_work', { types: ['stdio_loop'], wait_s: 2 });
    expect(claimed).toMatchObject({ id: item.id, status: 'in_progress', assigned_agent: 'stdio-1' });
    const beat = await use(bot1, 'heartbeat', { id: item.id, lease_s: 900 });
    expect(Date.parse(beat.lease_expires_at) - Date.now()).toBeGreaterThan(800_000);
    const done = await use(bot1, 'complete_work', { id: item.id, notes: 'via stdio', result: { lines: 3 } });
    expect(done).toMatchObject({ status: 'completed', notes: 'via stdio', payload: { result: { lines: 3 } } });

    const text = await refused(bot1, 'block_work', { id: item.id, reason: 'too late' });
    expect(text).toMatch(/^agentdesk refused \(409 Conflict\): Cannot move a work item from completed to blocked/);
  });

  it('answers JSON lines on stdout and exits 0 soon after its stdin ends, having talked to the desk', async () => {
    const child = spawn(process.execPath, [CLI_JS, 'mcp'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        AGENTDESK_URL: desk.url,
        AGENTDESK_TOKEN: await mint('stdio-raw'),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_projects', arguments: {} } });
    await vi.waitFor(() => expect(out).toContain('"id":2'), { timeout: 10_000, interval: 20 });
    const lines = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { structuredContent?: unknown } });
    expect(lines.map((line) => line.id)).toEqual([1, 2]);
    expect(lines[1]?.result.structuredContent).toEqual({ projects: [] });

    const ended = Date.now();
    child.stdin.end();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(Date.now() - ended).toBeLessThan(5_000);
  });

  it("keeps a second agent's token off the first agent's item", async () => {
    await api(desk.url, 'POST', '/work', admin, { type: 'stdio_owned', description: 'mine' });
    const claimed = await use(bot1, 'claim_next_work', { types: ['stdio_owned'] });
    const text = await refused(bot2, 'complete_work', { id: claimed.id });
    expect(text).toMatch(/^agentdesk refused \(403 Forbidden\): This token acts as agent stdio-2/);
    expect((await api(desk.url, 'GET', `/work/${claimed.id}`, admin)).body.status).toBe('in_progress');
  });
});

describe('agentdesk mcp (stdio) without a desk or an agent', () => {
  // One desk for both tests: the first starts it late, on the port its client already points at.
  let database: TestDatabase | undefined;
  let desk: ServerProcess | undefined;
  afterAll(async () => {
    await desk?.stop();
    await database?.destroy();
  });

  it('says, as a tool error, that the desk does not answer, and works once it does', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const client = await spawnMcp({ AGENTDESK_URL: url, AGENTDESK_AGENT: 'late-bot' });
    const text = await refused(client, 'list_projects');
    expect(text).toContain(`cannot reach agentdesk at ${url}`);
    expect(text).toContain('Is agentdesk running');

    database = await createTestDatabase('sqlite');
    desk = await startWorkServer({ port, env: { AUTH: 'off', DATABASE_URL: database.config.url } });
    expect(await use(client, 'list_projects')).toEqual({ projects: [] });
    await api(url, 'POST', '/work', { 'x-user': 'someone' }, { type: 'late', description: 'after the desk came up' });
    expect(await use(client, 'claim_next_work', { types: ['late'] })).toMatchObject({ assigned_agent: 'late-bot' });
  });

  it('under AUTH=off without AGENTDESK_AGENT, says which variable to set', async () => {
    expect(desk, 'the desk the test before started').toBeDefined();
    const client = await spawnMcp({ AGENTDESK_URL: desk!.url });
    expect(await refused(client, 'claim_next_work')).toContain('set AGENTDESK_AGENT');
  });

  // The README's stdio config once named a command nothing put on PATH. This runs the
  // config block as the README prints it, with only its placeholder path and the desk's port
  // filled in, the way a host (Claude Desktop) would start it.
  it("the README's stdio config, as written, starts a server that claims as its agent", async () => {
    expect(desk, 'the desk the first test started').toBeDefined();
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)]
      .map((match) => match[1]!)
      .find((json) => json.includes('"command"'));
    expect(block, 'a JSON block with "command" in the README').toBeDefined();
    const config = JSON.parse(block!) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    const server = config.mcpServers.agentdesk!;
    const args = server.args.map((arg) => (arg.endsWith('/dist/src/cli/main.js') ? CLI_JS : arg));
    expect(args).toContain(CLI_JS);
    const env: Record<string, string> = {
      ...server.env,
      AGENTDESK_URL: server.env.AGENTDESK_URL!.replace('http://127.0.0.1:8080', desk!.url),
    };
    const client = new Client({ name: 'readme-config', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: server.command,
        args,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    await api(
      desk!.url,
      'POST',
      '/work',
      { 'x-user': 'someone' },
      { type: 'readme', description: 'for the README config' },
    );
    expect(await use(client, 'claim_next_work', { types: ['readme'] })).toMatchObject({
      assigned_agent: env.AGENTDESK_AGENT,
    });
  });

  it('exits 0, having written nothing, when its stdin ends', async () => {
    const child = spawn(process.execPath, [CLI_JS, 'mcp'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', AGENTDESK_URL: 'http://127.0.0.1:9' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stdin.end();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(Buffer.concat(out).toString()).toBe('');
  });
});
