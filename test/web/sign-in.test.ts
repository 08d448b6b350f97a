import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { eventually, launchBrowser, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// In the browser: with AUTH=tokens the desk asks for a token, trades it for an
// HttpOnly session cookie, shows who you are, offers only what your role may do, follows
// live updates with the cookie, returns to sign-in when the token is revoked, and no token
// ever appears in a URL the browser requested.

let desk: Desk;
let browser: Browser;
const secrets: string[] = [ADMIN_SECRET];
const requested: string[] = [];

async function admin<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(desk.url + path, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_SECRET}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function mint(role: string, name: string, agent?: string): Promise<string> {
  const { body } = await admin('POST', '/tokens', { role, name, ...(agent && { agent }) });
  secrets.push(body.token);
  return body.token;
}

async function item(description: string, agent?: string): Promise<string> {
  return (await admin('POST', '/work', { type: 'web_auth', description, ...(agent && { agent }) })).body.id;
}

async function openSignedOut(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    baseURL: desk.url,
    viewport: { width: 1366, height: 860 },
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  context.setDefaultTimeout(10_000);
  context.on('request', (request) => requested.push(request.url()));
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  return { context, page, errors };
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in to agentdesk' }).waitFor();
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').waitFor();
}

const navLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk({ ...AUTH_ENV }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

describe('signing in to the desk', () => {
  it('an agent signs in, sees who it is, moves its own item and not another agent’s, and signs out', async () => {
    const token = await mint('agent', 'ada-browser', 'ada');
    const own = await item('Ada’s own task', 'ada');
    const other = await item('Grace’s task', 'grace');
    const { page, context, errors } = await openSignedOut();

    // The sign-in form is the page's main landmark, as every page of the desk has one.
    const main = page.getByRole('main');
    expect(await main.count()).toBe(1);
    expect(await main.getByRole('heading', { name: 'Sign in to agentdesk', level: 1 }).count()).toBe(1);
    expect(await main.getByLabel('Token').count()).toBe(1);

    // A wrong token is refused with a message, and nothing else is shown.
    await page.getByLabel('Token').fill('adk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.getByRole('alert').innerText()).toContain('not valid');
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);

    await signIn(page, token);
    expect(await page.getByTestId('whoami').innerText()).toMatch(/ada\s+agent/);
    expect(await navLinks(page)).toEqual([
      'Dashboard',
      'Board',
      'Submit',
      'Agents',
      'Projects',
      'Schedules',
      'Mailboxes',
    ]);
    // The first screen after signing in is the dashboard; the board is one link away.
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Board', exact: true }).click();
    // The cookie is HttpOnly: the page's script cannot read it, and nothing is kept in storage.
    expect(await page.evaluate('document.cookie')).toBe('');
    expect(await page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)')).not.toContain('adk_');
    await eventually(() => page.locator('.live').innerText()).toBe('Live');

    // Live updates arrive through the cookie-authenticated stream.
    await item('Made while Ada watches');
    await eventually(() => page.locator('table.items').innerText()).toContain('Made while Ada watches');

    await page.goto(`/#/items/${own}`);
    const actions = page.getByRole('region', { name: 'Actions' });
    await eventually(() => actions.getByRole('button').allInnerTexts()).toEqual(['Pick up', 'Release', 'Cancel item']);
    await actions.getByRole('button', { name: 'Pick up' }).click();
    await eventually(() => page.locator('dl.fields .badge').innerText()).toBe('in progress');
    expect((await admin('GET', `/work/${own}`)).body.status).toBe('in_progress');

    await page.goto(`/#/items/${other}`);
    await eventually(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Grace’s task');
    expect(await actions.getByRole('button').count()).toBe(0);
    expect(await actions.innerText()).toContain('Only items assigned to ada');
    expect(await page.getByRole('button', { name: 'Edit notes' }).count()).toBe(0);
    await screenshot(page, 'auth-agent-other-item');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to agentdesk' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to agentdesk' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a viewer sees everything and no action button anywhere', async () => {
    const token = await mint('viewer', 'watcher');
    const id = await item('Something to look at', 'ada');
    const project = (await admin('POST', '/projects', { name: 'Viewer project' })).body.id;
    void project;
    const { page, context } = await openSignedOut();
    await signIn(page, token);
    expect(await page.getByTestId('whoami').innerText()).toMatch(/watcher\s+viewer/);
    expect(await navLinks(page)).toEqual(['Dashboard', 'Board', 'Agents', 'Projects', 'Schedules', 'Mailboxes']);
    // The first screen after signing in is the dashboard; the board is one link away.
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Board', exact: true }).click();
    await eventually(() => page.locator('table.items').innerText()).toContain('Something to look at');
    expect(await page.getByRole('link', { name: 'Submit work' }).count()).toBe(0);

    await page.goto(`/#/items/${id}`);
    await eventually(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('Something to look at');
    const main = page.locator('main');
    // Only the sign-out button in the header remains; the item page offers nothing to press.
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.innerText()).toContain('can read this item but not change it');

    await page.goto('/#/projects');
    await eventually(() => main.innerText()).toContain('Viewer project');
    expect(await main.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    expect(await main.getByRole('form', { name: 'New project' }).count()).toBe(0);
    expect(await main.getByRole('link', { name: 'Add work' }).count()).toBe(0);
    await screenshot(page, 'auth-viewer-item');
    await context.close();
  });

  it('an admin creates a token on the Tokens page, copies its secret once, and revokes it', async () => {
    const { page, context } = await openSignedOut();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: desk.url });
    await signIn(page, ADMIN_SECRET);
    expect(await navLinks(page)).toEqual([
      'Dashboard',
      'Needs you',
      'Board',
      'Submit',
      'Agents',
      'Projects',
      'Schedules',
      'Classify',
      'My notifications',
    ]);
    // The admin's own pages are under one menu, so the bar keeps to one row.
    await page.getByRole('navigation', { name: 'Main' }).getByText('Admin', { exact: true }).click();
    await page.getByRole('link', { name: 'Tokens' }).click();
    const form = page.getByRole('form', { name: 'New token' });
    await form.getByLabel('Name').fill('night-shift');
    await form.getByLabel('Role').selectOption('agent');
    await form.getByLabel('Acts as agent').fill('owl');
    await form.getByRole('button', { name: 'Create token' }).click();
    const shown = page.getByTestId('new-token');
    await shown.waitFor();
    const secret = await shown.innerText();
    secrets.push(secret);
    expect(secret).toMatch(/^adk_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await eventually(() => page.evaluate('navigator.clipboard.readText()')).toBe(secret);

    // Ready-to-paste MCP configurations for the new token, and both work as pasted.
    const http = JSON.parse(await page.getByTestId('mcp-http').innerText());
    expect(http).toEqual({
      mcpServers: {
        agentdesk: { type: 'http', url: `${desk.url}/mcp`, headers: { Authorization: `Bearer ${secret}` } },
      },
    });
    const stdio = JSON.parse(await page.getByTestId('mcp-stdio').innerText()).mcpServers.agentdesk;
    expect(stdio).toEqual({
      command: process.execPath,
      args: [expect.stringMatching(/^\/.+\/dist\/src\/cli\/main\.js$/), 'mcp'],
      env: { AGENTDESK_URL: desk.url, AGENTDESK_TOKEN: secret },
    });
    const overHttp = new Client({ name: 'tokens-page-http', version: '1.0.0' });
    await overHttp.connect(
      new StreamableHTTPClientTransport(new URL(http.mcpServers.agentdesk.url), {
        requestInit: { headers: http.mcpServers.agentdesk.headers },
      }),
    );
    const overStdio = new Client({ name: 'tokens-page-stdio', version: '1.0.0' });
    await overStdio.connect(
      new StdioClientTransport({ command: stdio.command, args: stdio.args, env: stdio.env, stderr: 'pipe' }),
    );
    for (const client of [overHttp, overStdio]) {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('claim_next_work');
      await client.close();
    }
    await screenshot(page, 'auth-tokens-created');

    const use = () =>
      fetch(`${desk.url}/work/counts`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);
    expect(await use()).toBe(200);
    const row = page.getByRole('row').filter({ hasText: 'night-shift' });
    await eventually(() => row.innerText()).toContain('owl');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-token').count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toContain(secret);

    await row.getByRole('button', { name: 'Revoke night-shift' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
    await eventually(() => row.innerText()).toContain('revoked');
    expect(await use()).toBe(401);
    await context.close();
  });

  it('goes back to sign-in when its token is revoked', async () => {
    const token = await mint('viewer', 'soon-revoked');
    const { page, context } = await openSignedOut();
    await signIn(page, token);
    await eventually(() => page.locator('.live').innerText()).toBe('Live');
    const listed = await admin<Array<{ id: string; name: string }>>('GET', '/tokens');
    const id = listed.body.find((t) => t.name === 'soon-revoked')!.id;
    expect((await admin('DELETE', `/tokens/${id}`)).status).toBe(204);
    // The event stream is cut at once; its reconnection is refused; the page asks and signs out.
    await page.getByRole('heading', { name: 'Sign in to agentdesk' }).waitFor({ timeout: 15_000 });
    await context.close();
  });

  it('no token appeared in any URL the browser requested, nor in the service log', () => {
    expect(requested.length).toBeGreaterThan(20);
    expect(requested.some((url) => url.includes('/events'))).toBe(true);
    for (const url of requested) {
      for (const secret of secrets) expect(url).not.toContain(secret);
      expect(url).not.toMatch(/adk_[0-9A-Za-z]{10}/);
    }
    const logs = desk.work.logs.text();
    for (const secret of secrets) expect(logs).not.toContain(secret);
  });
});
