import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { api } from './helpers.js';

// A client nobody here wrote: the MCP Inspector's command-line mode (a devDependency, pinned to
// the version checked on Node 20 although it asks for Node 22) lists the tools, checks their
// schemas for portability (--strict), and calls them, over Streamable HTTP and over stdio.
// Run `npm run build:server` first.

const INSPECTOR = fileURLToPath(new URL('../../node_modules/.bin/mcp-inspector', import.meta.url));
const CLI_JS = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

// The Inspector keeps a catalog and storage under HOME: a throwaway one, not the developer's.
const home = mkdtempSync(join(tmpdir(), 'agentdesk-inspector-'));

function inspector(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      INSPECTOR,
      ['--cli', ...args],
      { timeout: 60_000, env: { PATH: process.env.PATH, HOME: home } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe.skipIf(!existsSync(INSPECTOR))('the MCP Inspector (CLI mode) against agentdesk', () => {
  let database: TestDatabase;
  let desk: ServerProcess;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    desk = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    const created = await api(desk.url, 'POST', '/tokens', bearer(ADMIN_SECRET), {
      name: 'inspected',
      role: 'agent',
      agent: 'inspected',
    });
    token = created.body.token;
  });
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
    rmSync(home, { recursive: true, force: true });
  });

  it('lists the tools over Streamable HTTP and finds no schema portability problem', async () => {
    const run = await inspector([
      `${desk.url}/mcp`,
      '--header',
      `Authorization: Bearer ${token}`,
      '--method',
      'tools/list',
      '--strict',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.trim()).toBe('');
    const names = (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
    expect(names).toHaveLength(19);
    expect(names).toContain('list_comments');
    expect(names).toContain('claim_next_work');
  });

  it('claims an item, and reports a refusal as the tool error it is', async () => {
    await api(desk.url, 'POST', '/work', bearer(ADMIN_SECRET), { type: 'inspected', description: 'for the inspector' });
    const auth = ['--header', `Authorization: Bearer ${token}`];
    const claim = await inspector([
      `${desk.url}/mcp`,
      ...auth,
      '--method',
      'tools/call',
      '--tool-name',
      'claim_next_work',
      '--tool-arg',
      'types=["inspected"]',
    ]);
    expect(claim.code, claim.stderr).toBe(0);
    const claimed = JSON.parse(claim.stdout) as { structuredContent: { assigned_agent: string; status: string } };
    expect(claimed.structuredContent).toMatchObject({ assigned_agent: 'inspected', status: 'in_progress' });

    const missing = '00000000-0000-4000-8000-000000000000';
    const refused = await inspector([
      `${desk.url}/mcp`,
      ...auth,
      '--method',
      'tools/call',
      '--tool-name',
      'start_work',
      '--tool-arg',
      `id=${missing}`,
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toContain('"isError": true');
    expect(refused.stdout).toContain(`Work item ${missing} does not exist`);
  });

  it('lists the tools of `agentdesk mcp` over stdio', async () => {
    const run = await inspector([
      '-e',
      `AGENTDESK_URL=${desk.url}`,
      '-e',
      `AGENTDESK_TOKEN=${token}`,
      '--method',
      'tools/list',
      '--',
      process.execPath,
      CLI_JS,
      'mcp',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { tools: unknown[] }).tools).toHaveLength(19);
  });
});
