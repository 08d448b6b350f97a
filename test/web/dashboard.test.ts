import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// The dashboard in Chromium: the landing page, its numbers (as the page exposes them in text)
// equal to what was done through the API, readable at desktop and phone width, live.

let desk: Desk;
let browser: Browser;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function finish(agent: string, type: string, outcome: 'completed' | 'failed', holdMs: number) {
  const claimed = await desk.api('POST', '/work/claim', { agent, types: [type], lease_s: 60 }, agent);
  expect(claimed.status).toBe(200);
  await sleep(holdMs);
  const body = outcome === 'completed' ? { status: 'completed', outcome: 'success' } : { status: 'failed', outcome: 'failed' };
  expect((await desk.api('PATCH', `/work/${claimed.body.id}`, body, agent)).status).toBe(200);
}

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
  for (let i = 0; i < 9; i += 1) {
    expect((await desk.api('POST', '/work', { type: i < 6 ? 'triage' : 'reply', description: `Seeded ${i}` })).status).toBe(201);
  }
  for (const hold of [10, 40, 80]) await finish('ann', 'triage', 'completed', hold);
  await finish('ann', 'triage', 'failed', 1);
  await finish('bob', 'reply', 'completed', 20);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

const tile = (page: Page, id: string) => page.getByTestId(`tile-${id}`).locator('dd').innerText();

/** The numbers of a chart's table for screen readers, summed per column. */
function columnTotals(page: Page, chart: string): Promise<Record<string, number>> {
  return page.getByTestId(chart).evaluate((figure) => {
    const table = figure.querySelector('table.chart-data')!;
    const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent ?? '');
    const totals: Record<string, number> = {};
    for (const row of table.querySelectorAll('tbody tr')) {
      [...row.querySelectorAll('td')].forEach((td, i) => {
        const head = heads[i + 1]!;
        totals[head] = (totals[head] ?? 0) + Number(td.textContent);
      });
    }
    return totals;
  });
}

describe('the dashboard', () => {
  it('is the first screen, and its numbers as text are the seeded ones (desktop)', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/', viewport: 'desktop' });
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current')).toBe('page');
    await eventually(() => tile(page, 'created')).toBe('9');
    expect(await tile(page, 'queued')).toBe('4');
    expect(await tile(page, 'completed')).toBe('4');
    expect(await tile(page, 'failed')).toBe('1');
    expect(await tile(page, 'in_progress')).toBe('0');
    expect(await tile(page, 'oldest-queued')).toMatch(/^\d+(\.\d)? (ms|s)$/);

    expect(await columnTotals(page, 'chart-flow')).toEqual({ Created: 9, Completed: 4, Failed: 1 });
    expect(await page.getByTestId('chart-flow').locator('figcaption').innerText()).toBe('Last 7 days: 9 created, 4 completed, 1 failed.');
    expect(await page.getByTestId('chart-depth').locator('figcaption').innerText()).toContain('Now: 4 queued, 0 dispatched, 0 in progress, 0 blocked.');
    // The canvas is drawn, as wide as its card.
    const canvas = await page.getByTestId('chart-flow').locator('canvas').first().boundingBox();
    expect(canvas!.width).toBeGreaterThan(300);

    const rows = await page.getByTestId('agents-table').locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())),
    );
    expect(rows.map((row) => row.slice(0, 4))).toEqual([
      ['ann', '3', '1', '25%'],
      ['bob', '1', '0', '0%'],
    ]);
    // The lead times are the API's, as the page writes durations under a minute.
    const stats = (await desk.api('GET', '/work/stats?days=7')).body;
    const shown = (seconds: number) => (seconds < 1 ? `${Math.round(seconds * 1000)} ms` : seconds < 10 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`);
    expect(rows.map((row) => row.slice(4))).toEqual(
      stats.agents.map((a: any) => [shown(a.lead_time_median_s), shown(a.lead_time_p90_s)]),
    );
    // The classifier usage endpoint is not there: the panel says so, the rest stands.
    expect(await page.getByTestId('usage-panel').innerText()).toContain('Classifier usage unavailable');
    await screenshot(page, 'dashboard-desktop');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('fits a phone: charts as wide as the screen, nothing scrolls sideways', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/', viewport: 'phone' });
    await eventually(() => tile(page, 'created')).toBe('9');
    const canvas = await page.getByTestId('chart-depth').locator('canvas').first().boundingBox();
    expect(canvas!.width).toBeLessThanOrEqual(390);
    expect(canvas!.width).toBeGreaterThan(240);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, 'dashboard-phone');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('updates live: an item submitted while the page is open moves the numbers', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/dashboard', viewport: 'desktop' });
    await eventually(() => tile(page, 'queued')).toBe('4');
    await eventually(() => page.getByRole('status').filter({ hasText: 'Live' }).count()).toBe(1);
    expect((await desk.api('POST', '/work', { type: 'reply', description: 'Arrived while watching' })).status).toBe(201);
    await eventually(() => tile(page, 'queued')).toBe('5');
    expect(await tile(page, 'created')).toBe('10');
    await eventually(() => columnTotals(page, 'chart-flow')).toEqual({ Created: 10, Completed: 4, Failed: 1 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
