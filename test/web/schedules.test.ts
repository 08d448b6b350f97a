import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { eventually, launchBrowser, screenshot, VIEWPORTS } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';
import { deskCall, fitsWidth, mintToken, signIn } from './signed-in.js';

// Schedules in the browser, with AUTH=tokens: a member sets up "every weekday at 08:30" in
// Berlin, seeing the next five runs (in the viewer's zone, UTC here, and Berlin's) before saving;
// runs it now and follows the item back to its schedule; disables, enables and deletes it. A
// viewer reads the list with nothing to press. At a desktop's and a phone's width.

let desk: Desk;
let browser: Browser;

let memberToken: string;
let viewerToken: string;

const admin = deskCall(() => desk.url, ADMIN_SECRET);
const mint = (role: string, name: string) => mintToken(admin, role, name);
const signedIn = (token: string, viewport: keyof typeof VIEWPORTS, path: string) =>
  signIn(browser, desk.url, token, viewport, path);

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(AUTH_ENV), launchBrowser()]);
  memberToken = await mint('member', 'mia');
  viewerToken = await mint('viewer', 'vic');
  expect((await admin('POST', '/projects', { name: 'Inbox' })).status).toBe(201);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

describe.each(['desktop', 'phone'] as const)('schedules at %s width', (viewport) => {
  it('a member sets up every weekday at 08:30 in Berlin seeing the next five runs first, runs it, follows its item back, disables, enables and deletes it', async () => {
    const name = `Triage ${viewport}`;
    const { context, page, errors } = await signedIn(memberToken, viewport, '/dashboard');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('heading', { name: 'Schedules', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New schedule' }).click();
    const form = page.getByRole('form', { name: 'New schedule' });
    // The zone is the browser's own to begin with.
    expect(await form.getByLabel('Time zone').inputValue()).toBe('UTC');
    await form.getByLabel('Name').fill(name);

    // A bad expression is the service's words under the field, and no runs.
    const cron = form.getByLabel('Cron expression');
    await cron.fill('');
    await cron.pressSequentially('61 8 * * *');
    await eventually(() => form.getByTestId('cron-error').innerText()).toMatch(/minute/i);
    expect(await form.getByTestId('next-runs').count()).toBe(0);

    // One click on an example, a zone: five weekday runs at 08:30 Berlin, in UTC first.
    await form.getByRole('button', { name: 'Every weekday at 08:30' }).click();
    expect(await cron.inputValue()).toBe('30 8 * * 1-5');
    await form.getByLabel('Time zone').selectOption('Europe/Berlin');
    await eventually(() => form.getByTestId('cron-error').innerText()).toBe('');
    const runs = form.getByTestId('next-runs').locator('li');
    await eventually(() => runs.count()).toBe(5);
    await eventually(() => runs.first().innerText()).toContain('CE');
    for (const run of await runs.allInnerTexts()) {
      expect(run).toMatch(/^(Mon|Tue|Wed|Thu|Fri), .* 0[67]:30 UTC · (Mon|Tue|Wed|Thu|Fri), .* 08:30 CES?T$/);
    }
    expect(await form.innerText()).toContain('Every weekday at 08:30, Europe/Berlin.');
    await form.getByLabel('Item type').fill('triage');
    await form.getByLabel('Project').selectOption({ label: 'Inbox' });
    await form.getByLabel('Description of each item').fill('Triage the inbox');
    await fitsWidth(page);
    await screenshot(page, `schedules-form-${viewport}`);
    await form.getByRole('button', { name: 'Create schedule' }).click();

    const row = page.locator(`tr[data-schedule="${name}"]`);
    await row.waitFor();
    const rowText = await row.innerText();
    expect(rowText).toContain('Every weekday at 08:30');
    expect(rowText).toContain('Europe/Berlin');
    expect(rowText).toMatch(/0[67]:30 UTC/);
    expect(rowText).toMatch(/08:30 CES?T/);
    expect(rowText).toContain('Enabled');
    const created = (await admin('GET', '/schedules')).body.find((s: any) => s.name === name);
    expect(created).toMatchObject({ cron: '30 8 * * 1-5', tz: 'Europe/Berlin', item: { type: 'triage' } });
    await fitsWidth(page);
    await screenshot(page, `schedules-${viewport}`);

    // Run now: the occurrence lists the item; the item says where it came from.
    await row.getByRole('button', { name: `Run ${name} now` }).click();
    const detail = page.getByTestId('schedule-detail');
    await eventually(() => detail.getByTestId('occurrences').locator('li').count()).toBe(1);
    expect(await detail.getByTestId('next-runs').locator('li').count()).toBe(5);
    expect(await detail.getByTestId('occurrences').innerText()).toContain('run now');
    await fitsWidth(page);
    await screenshot(page, `schedules-detail-${viewport}`);
    await detail.getByRole('link', { name: 'Open item' }).click();
    const from = page.getByTestId('item-schedule');
    await eventually(() => from.innerText()).toBe(`From schedule ${name}`);
    await screenshot(page, `schedules-item-${viewport}`);
    await from.getByRole('link', { name }).click();
    await eventually(() => page.getByTestId('schedule-detail').getByRole('heading').first().innerText()).toBe(name);

    // Edit: a new description keeps the rhythm (only what changed is sent).
    await row.getByRole('button', { name: `Edit ${name}` }).click();
    const edit = page.getByRole('form', { name: `Edit schedule ${name}` });
    expect(await edit.getByLabel('Cron expression').inputValue()).toBe('30 8 * * 1-5');
    await eventually(() => edit.getByTestId('next-runs').locator('li').count()).toBe(5);
    await fitsWidth(page);
    await screenshot(page, `schedules-edit-${viewport}`);
    await edit.getByLabel('Description of each item').fill('Triage the shared inbox');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row.waitFor();
    const edited = (await admin('GET', `/schedules/${created.id}`)).body;
    expect(edited.item.description).toBe('Triage the shared inbox');
    expect(edited).toMatchObject({ cron: '30 8 * * 1-5', tz: 'Europe/Berlin', next_run_at: created.next_run_at });

    // Disable and enable.
    await row.getByRole('button', { name: `Disable ${name}` }).click();
    await eventually(() => row.innerText()).toContain('Disabled');
    expect((await admin('GET', `/schedules/${created.id}`)).body.enabled).toBe(false);
    await row.getByRole('button', { name: `Enable ${name}` }).click();
    await eventually(() => row.innerText()).toContain('Enabled');
    expect((await admin('GET', `/schedules/${created.id}`)).body.enabled).toBe(true);

    // Delete, after a confirmation.
    await row.getByRole('button', { name: `Delete ${name}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Keep it' }).waitFor();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await eventually(() => row.count()).toBe(0);
    expect((await admin('GET', `/schedules/${created.id}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('a viewer', () => {
  it('reads the schedules and their occurrences with nothing to press', async () => {
    const made = await admin('POST', '/schedules', {
      name: 'Monthly invoices',
      cron: '0 9 1 * *',
      tz: 'America/New_York',
      item: { type: 'reconcile', description: 'Reconcile the invoices' },
    });
    expect(made.status).toBe(201);
    expect((await admin('POST', `/schedules/${made.body.id}/run`)).status).toBe(201);
    const { context, page, errors } = await signedIn(viewerToken, 'phone', `/schedules?id=${made.body.id}`);
    const main = page.locator('main');
    await eventually(() => main.locator('tr[data-schedule="Monthly invoices"]').innerText()).toContain(
      'Day 1 of each month at 09:00',
    );
    await eventually(() => page.getByTestId('occurrences').locator('li').count()).toBe(1);
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.getByRole('form').count()).toBe(0);
    await fitsWidth(page);
    await screenshot(page, 'schedules-viewer-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('an admin', () => {
  it('finds Schedules in the menu at 1280 px and may manage them', async () => {
    const { context, page, errors } = await signedIn(ADMIN_SECRET, 'desktop', '/schedules');
    await page.locator('tr[data-schedule="Monthly invoices"]').waitFor();
    expect(await page.getByRole('button', { name: 'New schedule' }).count()).toBe(1);
    await screenshot(page, 'schedules-admin-desktop');
    expect(errors).toEqual([]);
    await context.close();
  });
});
