import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

let desk: Desk;
let browser: Browser;
const TOTAL = 130;
let alpha: string;
const created: { id: string; created_at: string; type: string; priority: number }[] = [];

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
  alpha = (await desk.api('POST', '/projects', { name: 'Alpha' })).body.id;
  await desk.api('POST', '/projects', { name: 'Beta' });
  for (let i = 1; i <= TOTAL; i++) {
    const r = await desk.api('POST', '/work', {
      type: i % 2 === 0 ? 'code_review' : 'bug_fix',
      description: `Task number ${i}`,
      priority: (i % 5) + 1,
      ...(i % 3 === 0 ? { agent: `agent-${i % 4}` } : {}),
      ...(i % 4 === 0 ? { project_id: alpha } : {}),
    });
    created.push(r.body);
  }
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

const rows = (page: Page) => page.locator('table.items tbody tr');
const rowIds = (page: Page) => rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')!));
const hashParams = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '');

/** What the API itself answers for a query, every page of it: the page must show the same. */
async function apiIds(query: Record<string, string>): Promise<string[]> {
  const r = await desk.api<{ id: string }[]>('GET', `/work?${new URLSearchParams({ ...query, limit: '1000' })}`);
  return r.body.map((i) => i.id);
}

async function settled(page: Page) {
  await page.locator('[aria-busy="false"]').first().waitFor();
}

describe('the board', () => {
  it('pages through every item with the Link cursor, loading one page at a time', async () => {
    const { page, context } = await openDesk(browser, desk.url, { path: '/#/?limit=25' });
    const requests: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/work') requests.push(r.url());
    });
    await eventually(() => rows(page).count()).toBe(25);
    await eventually(() => page.locator('.count-n[data-status="all"]').innerText()).toBe(String(TOTAL));

    const seen: string[] = [];
    const firstPage = await rowIds(page);
    for (let pageNo = 1; ; pageNo++) {
      await settled(page);
      const ids = await rowIds(page);
      expect(ids.length).toBe(pageNo < 6 ? 25 : TOTAL - 125);
      seen.push(...ids);
      const next = page.getByRole('button', { name: 'Next →' });
      if ((await next.count()) === 0) break;
      await next.click();
      await eventually(async () => (await rowIds(page))[0]).not.toBe(ids[0]);
      expect(hashParams(page).get('cursor')).toBeTruthy();
    }
    expect(seen.length).toBe(TOTAL);
    expect(new Set(seen).size).toBe(TOTAL);
    expect(seen).toEqual(await apiIds({}));
    expect(new Set(seen)).toEqual(new Set(created.map((c) => c.id)));
    // Every request asked for one page, never for everything.
    expect(requests.every((u) => new URL(u).searchParams.get('limit') === '25')).toBe(true);

    await page.getByRole('button', { name: '← Previous' }).click();
    await eventually(async () => (await rowIds(page))[0]).toBe(seen[100]);

    // A cursor in a shared link still loads that page; "First page" goes back to the start.
    await page.reload();
    await eventually(async () => (await rowIds(page))[0]).toBe(seen[100]);
    await page.getByRole('button', { name: '↑ First page' }).click();
    await eventually(() => rowIds(page)).toEqual(firstPage);
    await context.close();
  });

  it('filters by status, agent, project, type and since, keeps them in the URL and counts per status', async () => {
    const { page, context } = await openDesk(browser, desk.url);
    await eventually(() => rows(page).count()).toBe(50);

    await page.getByLabel('Status', { exact: true }).selectOption('dispatched');
    await eventually(() => hashParams(page).get('status')).toBe('dispatched');
    await settled(page);
    const dispatched = created.filter((_, i) => (i + 1) % 3 === 0).length;
    await eventually(() => rows(page).count()).toBe(dispatched);
    expect(new Set(await page.locator('table.items tbody .badge').allInnerTexts())).toEqual(new Set(['dispatched']));
    await eventually(() => page.locator('.count-n[data-status="dispatched"]').innerText()).toBe(String(dispatched));
    await eventually(() => page.locator('.count-n[data-status="queued"]').innerText()).toBe(String(TOTAL - dispatched));

    await page.getByLabel('Agent', { exact: true }).fill('agent-1');
    await page.getByLabel('Type', { exact: true }).fill('bug_fix');
    await page.getByLabel('Type', { exact: true }).press('Enter');
    await eventually(() => hashParams(page).get('agent')).toBe('agent-1');
    await settled(page);
    const expected = await apiIds({ status: 'dispatched', agent: 'agent-1', type: 'bug_fix' });
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBe(created.filter((c, i) => (i + 1) % 12 === 9 && c.type === 'bug_fix').length);
    await eventually(() => rowIds(page)).toEqual(expected);

    // Reload: the same view comes back from the URL alone.
    await page.reload();
    await eventually(() => rowIds(page)).toEqual(expected);
    expect(await page.getByLabel('Agent', { exact: true }).inputValue()).toBe('agent-1');
    expect(await page.getByLabel('Status', { exact: true }).inputValue()).toBe('dispatched');
    await screenshot(page, 'board-filtered-laptop');

    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Project', { exact: true }).selectOption({ label: 'Alpha' });
    await eventually(() => hashParams(page).get('project_id')).toBe(alpha);
    // "Clear" cleared the rest, even though the project was picked at once.
    expect(['status', 'agent', 'type', 'since'].map((key) => hashParams(page).get(key))).toEqual([
      null,
      null,
      null,
      null,
    ]);
    await settled(page);
    await eventually(() => rows(page).count()).toBe(created.filter((_, i) => (i + 1) % 4 === 0).length);
    await eventually(
      async () => new Set(await page.locator('table.items tbody td:nth-child(6)').allInnerTexts()),
    ).toEqual(new Set(['Alpha']));

    // Counts are buttons that set the status filter.
    await page.getByRole('button', { name: /^queued/ }).click();
    await eventually(() => hashParams(page).get('status')).toBe('queued');
    await eventually(() => page.getByRole('button', { name: /^queued/ }).getAttribute('aria-pressed')).toBe('true');

    // since: strictly after the 100th item.
    const since = created[99]!.created_at;
    await page.goto(`${desk.url}/#/?since=${encodeURIComponent(since)}&limit=100`);
    await settled(page);
    const after = await apiIds({ since });
    expect(after.length).toBe(created.filter((c) => c.created_at > since).length);
    await eventually(() => rowIds(page)).toEqual(after);
    await context.close();
  });

  it('shows queue order: priority first, then oldest first', async () => {
    const { page, context } = await openDesk(browser, desk.url, { path: '/#/?sort=priority&status=queued&limit=10' });
    await settled(page);
    const order = (await apiIds({ sort: 'priority', status: 'queued' })).slice(0, 10);
    await eventually(() => rowIds(page)).toEqual(order);
    const priorities = (await page.locator('table.items tbody td.num').allInnerTexts()).map(Number);
    expect(priorities).toEqual([...priorities].sort((a, b) => a - b));
    expect(priorities[0]).toBe(1);
    expect(await page.getByLabel('Order', { exact: true }).inputValue()).toBe('priority');
    await context.close();
  });

  it('folds the filters away on a phone and keeps the list readable', async () => {
    const { page, context } = await openDesk(browser, desk.url, { viewport: 'phone' });
    await eventually(() => rows(page).count()).toBe(50);
    expect(await page.getByLabel('Agent', { exact: true }).isVisible()).toBe(false);
    await page.getByText('Filters', { exact: true }).click();
    expect(await page.getByLabel('Agent', { exact: true }).isVisible()).toBe(true);
    // No sideways scrolling of the page itself.
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBe(0);
    await screenshot(page, 'board-phone');
    await context.close();
  });
});
