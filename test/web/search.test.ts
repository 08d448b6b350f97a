import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { eventually, launchBrowser, screenshot, VIEWPORTS } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';
import { deskCall, signIn } from './signed-in.js';

// Search in the browser, signed in as an admin: `/` reaches the box in the top bar, Enter opens
// the Search page, the passage shows its marked words, a filter chip removed runs the query
// again, More results pages, a refusal is shown in the service's words, markup in an item is
// text. And the admin's top bar keeps to one row at a desktop's width. At 1280 and 390 px.

const PAGED = 'pagewordx';

let desk: Desk;
let browser: Browser;

const admin = deskCall(() => desk.url, ADMIN_SECRET);
const signedIn = (viewport: keyof typeof VIEWPORTS) => signIn(browser, desk.url, ADMIN_SECRET, viewport);

async function item(description: string, type = 'task', project_id?: string): Promise<string> {
  const { status, body } = await admin('POST', '/work', { type, description, ...(project_id ? { project_id } : {}) });
  expect(status).toBe(201);
  return body.id;
}

const FOCUSED = "document.activeElement?.getAttribute('aria-label') ?? ''";
const results = (page: Page) => page.getByRole('list', { name: 'Results' }).locator(':scope > li');
const overflow = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(AUTH_ENV), launchBrowser()]);
  for (let i = 0; i < 27; i += 1) await item(`Paged ${PAGED} number ${i}`);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

describe.each(['desktop', 'phone'] as const)('search at %s width', (viewport) => {
  const word = viewport === 'desktop' ? 'zephyrine' : 'quokkalyn';

  it('finds an item from the top bar, marks the passage, and re-runs the query when a filter chip is removed', async () => {
    const project = (await admin('POST', '/projects', { name: `Atlas ${viewport}` })).body.id as string;
    const billing = await item(`Invoice for ${word} is overdue`, 'billing', project);
    await item(`Support call about ${word}`, 'support');
    const { context, page, errors } = await signedIn(viewport);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

    // `/` reaches the box from the page, but not while typing in a field.
    await page.keyboard.press('/');
    const box = page.getByRole('search', { name: 'Search' }).getByRole('searchbox', { name: 'Search items' });
    await eventually(() => page.evaluate<string>(FOCUSED)).toBe('Search items');
    await box.fill(`${word} type:billing`);
    await box.press('Enter');
    await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
    expect(await page.evaluate('location.hash')).toBe(`#/search?q=${word}+type%3Abilling`);
    await eventually(() => results(page).count()).toBe(1);
    const hit = results(page).first();
    expect(await hit.getByRole('link').innerText()).toBe(`Invoice for ${word} is overdue`);
    expect(await hit.getByRole('link').getAttribute('href')).toBe(`#/items/${billing}`);
    expect(await hit.innerText()).toContain('billing');
    expect(await hit.innerText()).toContain(`Atlas ${viewport}`);
    expect(await hit.innerText()).toContain('matched in');
    expect(await hit.locator('.badge').innerText()).toBe('queued');
    expect(await hit.locator('.passage mark').allInnerTexts()).toEqual([word]);
    expect(await hit.locator('.passage').innerText()).toBe(`Invoice for ${word} is overdue`);

    // The filter shows as a chip; removing it edits the query and runs it again.
    const chips = page.getByRole('list', { name: 'Filters' });
    expect(await chips.innerText()).toContain('type: billing');
    await overflowFree(page);
    await screenshot(page, `search-${viewport}`);
    await chips.getByRole('button', { name: 'Remove filter type:billing' }).click();
    await eventually(() => results(page).count()).toBe(2);
    expect(await page.getByRole('searchbox', { name: 'Search query' }).inputValue()).toBe(word);
    expect(await chips.count()).toBe(0);

    // While typing in a field, `/` is a character.
    const query = page.getByRole('searchbox', { name: 'Search query' });
    await query.fill('');
    await query.press('/');
    expect(await query.inputValue()).toBe('/');

    // Newest first is in the address, so it survives a reload.
    await query.fill(word);
    await query.press('Enter');
    await page.getByLabel('Newest first').check();
    await eventually(() => page.evaluate('location.hash')).toContain('sort=newest');
    await eventually(() => results(page).count()).toBe(2);
    expect(await results(page).first().getByRole('link').innerText()).toBe(`Support call about ${word}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('pages with More results, shows a refusal in the service’s words and an empty state', async () => {
    const { context, page, errors } = await signedIn(viewport);
    await page.goto(`/#/search?q=${PAGED}`);
    await eventually(() => results(page).count()).toBe(25);
    await page.getByRole('button', { name: 'More results' }).click();
    await eventually(() => results(page).count()).toBe(27);
    const ids = await results(page).evaluateAll((els) => els.map((el) => el.getAttribute('data-item')));
    expect(new Set(ids).size).toBe(27);
    expect(await page.getByRole('button', { name: 'More results' }).count()).toBe(0);

    await page.goto('/#/search?q=status%3Anonsense');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const refused = await admin('GET', '/search?q=status%3Anonsense');
    expect(refused.status).toBe(422);
    expect(await alert.innerText()).toContain((refused.body as { detail: string }).detail);
    await screenshot(page, `search-refused-${viewport}`);

    await page.goto('/#/search?q=nothingmatchesthisword');
    await eventually(() => page.locator('main').innerText()).toContain('No items match');
    await overflowFree(page);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows markup in an item as text', async () => {
    const hostile = `Payment ${word}x <img src=x onerror=alert(1)> failed`;
    await item(hostile);
    const { context, page, errors, dialogs } = await signedIn(viewport);
    await page.goto(`/#/search?q=${word}x`);
    await eventually(() => results(page).count()).toBe(1);
    const hit = results(page).first();
    expect(await hit.getByRole('link').innerText()).toBe(hostile);
    expect(await hit.locator('.passage').innerText()).toBe(hostile);
    expect(await hit.locator('.passage mark').allInnerTexts()).toEqual([`${word}x`]);
    expect(await page.locator('main img').count()).toBe(0);
    await screenshot(page, `search-markup-${viewport}`);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the admin’s pages under an Admin menu that opens and closes by keyboard', async () => {
    const { context, page, errors } = await signedIn(viewport);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    if (viewport === 'desktop') {
      // One row: the brand, the menu and the end of the bar share a line.
      const rows = await page.evaluate<number>(
        "document.querySelector('.topbar').clientHeight / document.querySelector('.topbar nav a').offsetHeight",
      );
      expect(rows).toBeLessThan(2);
    }
    const summary = nav.getByText('Admin', { exact: true });
    await summary.focus();
    await page.keyboard.press('Enter');
    await nav.getByRole('link', { name: 'People' }).waitFor();
    await screenshot(page, `search-admin-menu-${viewport}`);
    await page.keyboard.press('Escape');
    await eventually(() => nav.getByRole('link', { name: 'People' }).count()).toBe(0);
    await page.keyboard.press('Enter');
    await nav.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    expect(await nav.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    await overflowFree(page);
    expect(errors).toEqual([]);
    await context.close();
  });
});

async function overflowFree(page: Page): Promise<void> {
  expect(await overflow(page)).toBeLessThanOrEqual(0);
}
