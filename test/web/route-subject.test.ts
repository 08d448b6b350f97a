import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_KEY } from '../support/intake.js';
import { eventually, launchBrowser, openDesk } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// A page whose subject changes (another item, mailbox or project in the address,
// reached by URL, Back or Forward) must forget the dialogs and drafts of the last subject. The
// Delete confirmation opened on one item once survived the move and deleted the next one.

let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk({ AGENTDESK_SECRET_KEY: SECRET_KEY }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

async function newItem(description: string): Promise<string> {
  const created = await desk.api('POST', '/work', { type: 'chore', description });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const exists = async (id: string) => (await desk.api('GET', `/work/${id}`)).status;

/** Waits for the item page of `description`, then does what a user would do with a confirmation still on screen: confirm it. */
async function confirmWhatIsShown(page: Page, description: string): Promise<boolean> {
  await eventually(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(description);
  const dialog = page.getByRole('dialog', { name: 'Delete this work item?' });
  const shown = await dialog.isVisible();
  if (shown) await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  return shown;
}

async function openDelete(page: Page, description: string): Promise<void> {
  await eventually(() => page.getByRole('heading', { level: 1 }).innerText()).toBe(description);
  await page.getByRole('button', { name: 'Delete…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this work item?' });
  await dialog.waitFor();
  expect(await dialog.innerText()).toContain(description);
}

describe('a page forgets the last subject’s dialogs and drafts', () => {
  it('the Delete confirmation of one item never deletes another (by URL, Back and Forward)', async () => {
    const x = await newItem('Item X, whose delete was opened');
    const y = await newItem('Item Y, only looked at');
    const { page, context, errors } = await openDesk(browser, desk.url, { path: `/#/items/${x}` });

    // By URL: open Delete… on X, then type Y's address.
    await openDelete(page, 'Item X, whose delete was opened');
    await page.goto(`/#/items/${y}`);
    const byUrl = await confirmWhatIsShown(page, 'Item Y, only looked at');
    expect(await exists(y)).toBe(200);
    expect(byUrl).toBe(false);

    // Back: open Delete… on Y, go back to X.
    await openDelete(page, 'Item Y, only looked at');
    await page.goBack();
    const byBack = await confirmWhatIsShown(page, 'Item X, whose delete was opened');
    expect(await exists(x)).toBe(200);
    expect(byBack).toBe(false);

    // Forward: open Delete… on X, go forward to Y.
    await openDelete(page, 'Item X, whose delete was opened');
    await page.goForward();
    const byForward = await confirmWhatIsShown(page, 'Item Y, only looked at');
    expect(await exists(y)).toBe(200);
    expect(byForward).toBe(false);

    // The confirmation still deletes the item it was opened on.
    await openDelete(page, 'Item Y, only looked at');
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL(/#\/$/);
    expect(await exists(y)).toBe(404);
    expect(await exists(x)).toBe(200);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an unsaved routing rule of one mailbox is not saved into the next', async () => {
    const mailbox = (name: string) => ({
      name,
      kind: 'imap',
      host: 'imap.example.com',
      port: 1,
      tls: 'none',
      username: name,
      password: 'pw',
      enabled: false,
    });
    const a = (await desk.api('POST', '/mailboxes', mailbox('Mailbox A'))).body.id as string;
    const b = (await desk.api('POST', '/mailboxes', mailbox('Mailbox B'))).body.id as string;
    const { page, context, errors } = await openDesk(browser, desk.url, { path: `/#/mailboxes/${a}` });
    await page.getByRole('heading', { name: 'Mailbox A', level: 1 }).waitFor();
    const rules = page.getByRole('form', { name: 'Routing rules' });
    await rules.getByRole('button', { name: 'Add rule' }).click();
    await rules.getByLabel('Subject contains').fill('only for A');

    await page.goto(`/#/mailboxes/${b}`);
    await page.getByRole('heading', { name: 'Mailbox B', level: 1 }).waitFor();
    expect(await rules.getByLabel('Subject contains').count()).toBe(0);
    expect(await rules.getByRole('button', { name: 'Save rules' }).isDisabled()).toBe(true);
    expect((await desk.api('GET', `/mailboxes/${b}`)).body.rules).toEqual([]);
    expect(await page.title()).toBe('Mailbox Mailbox B · agentdesk');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Submit work follows the project in its address', async () => {
    const p1 = (await desk.api('POST', '/projects', { name: 'Project One' })).body.id as string;
    const p2 = (await desk.api('POST', '/projects', { name: 'Project Two' })).body.id as string;
    const { page, context } = await openDesk(browser, desk.url, { path: `/#/new?project_id=${p1}` });
    const project = page.getByLabel('Project');
    await eventually(() => project.inputValue()).toBe(p1);
    await page.goto(`/#/new?project_id=${p2}`);
    await eventually(() => project.inputValue()).toBe(p2);
    await context.close();
  });

  it('every page has its own title', async () => {
    const id = await newItem('Rotate the staging keys');
    const { page, context } = await openDesk(browser, desk.url, { path: '/#/' });
    await eventually(() => page.title()).toBe('Board · agentdesk');
    await page.goto(`/#/items/${id}`);
    await eventually(() => page.title()).toBe('Rotate the staging keys · agentdesk');
    await page.goto('/#/no-such-page');
    await eventually(() => page.title()).toBe('Not found · agentdesk');
    await page.goto('/#/tokens');
    await eventually(() => page.title()).toBe('Tokens · agentdesk');
    await page.goto('/#/items/00000000-0000-4000-8000-000000000000');
    await eventually(() => page.title()).toBe('Item not found · agentdesk');
    await context.close();
  });

  it('the history of a claimed item speaks in words and local times, not columns and ISO instants', async () => {
    expect(
      (await desk.api('POST', '/work', { type: 'history_words', description: 'Claimed for its history' })).status,
    ).toBe(201);
    const claimed = await desk.api(
      'POST',
      '/work/claim',
      { agent: 'bot-1', types: ['history_words'], lease_s: 120 },
      'bot-1',
    );
    expect(claimed.status).toBe(200);
    const { page, context } = await openDesk(browser, desk.url, { path: `/#/items/${claimed.body.id}` });
    const history = page.getByRole('list', { name: 'Timeline, oldest first' });
    await eventually(() => history.locator('li[data-kind="change"]').count()).toBe(2);
    const lines = await history.locator('li[data-kind="change"]').allInnerTexts();
    // en-GB, UTC (browser.ts): "26 Nov 2026, 03:24:57".
    expect(lines[1]).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2}:\d{2} Claimed by bot-1 \(\w+\): /);
    expect(lines[1]).toMatch(/Status: queued → in progress/);
    expect(lines[1]).toMatch(/Assigned agent: — → bot-1/);
    expect(lines[1]).toMatch(/Lease until: — → \d{1,2} \w{3} \d{4}, \d{2}:\d{2}:\d{2}/);
    for (const line of lines) {
      expect(line).not.toMatch(/lease_expires_at|assigned_agent|\d{4}-\d{2}-\d{2}T/);
    }
    await context.close();
  });
});
