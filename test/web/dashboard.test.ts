import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClassifyApp } from '../../src/services/classify.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { captureLogs, testConfig } from '../support/apps.js';
import { createJumpingClock } from '../support/clock.js';
import { openAiFake, testResolver } from '../support/classify-app.js';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { eventually, launchBrowser, layoutShift, openDesk, screenshot, TRACK_LAYOUT_SHIFT } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// The dashboard in Chromium: the landing page, its numbers (as the page exposes them in text)
// equal to what was done through the API, readable at desktop and phone width, live.

let desk: Desk;
let browser: Browser;
let fake: FakeLlm;
let classifier: HttpApp;
const folder = mkdtempSync(join(tmpdir(), 'agentdesk-dashboard-'));
const pricesPath = join(folder, 'prices.json');
writeFileSync(pricesPath, JSON.stringify({ 'priced-model': { input_per_million: 2, output_per_million: 8 } }));

/**
 * The classification service on the desk's own database (as `npm start` runs the two), asked
 * over HTTP by the fake provider's wire format: three new emails, then one of them again.
 */
async function classifySome(): Promise<void> {
  fake = await startFakeLlm();
  classifier = await buildClassifyApp({
    config: testConfig(desk.work.testDatabase, {
      ...openAiFake(fake),
      LLM_MODEL: 'priced-model',
      LLM_PRICES: pricesPath,
    }),
    database: desk.work.database,
    logger: captureLogs('warn').logger,
    resolveHost: testResolver,
  });
  await classifier.listen({ port: 0, host: '127.0.0.1' });
  const { port } = classifier.server.address() as AddressInfo;
  const classify = (n: number) =>
    fetch(`http://127.0.0.1:${port}/classify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: `dashboard-${n}`,
        email_data: { subject: `Invoice ${n}`, body: `Please pay invoice ${n} by Friday.` },
      }),
    });
  for (const n of [1, 2, 3, 1]) expect((await classify(n)).status).toBe(200);
}

// Lead times are made by moving the desk's clock, not by holding a claim for real.
const clock = createJumpingClock();

async function finish(agent: string, type: string, outcome: 'completed' | 'failed', holdMs: number) {
  const claimed = await desk.api('POST', '/work/claim', { agent, types: [type], lease_s: 60 }, agent);
  expect(claimed.status).toBe(200);
  clock.advance(holdMs);
  const body =
    outcome === 'completed' ? { status: 'completed', outcome: 'success' } : { status: 'failed', outcome: 'failed' };
  expect((await desk.api('PATCH', `/work/${claimed.body.id}`, body, agent)).status).toBe(200);
}

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk({ LLM_PRICES: pricesPath }, { now: clock.now }), launchBrowser()]);
  await classifySome();
  for (let i = 0; i < 9; i += 1) {
    expect(
      (await desk.api('POST', '/work', { type: i < 6 ? 'triage' : 'reply', description: `Seeded ${i}` })).status,
    ).toBe(201);
  }
  for (const hold of [10, 40, 80]) await finish('ann', 'triage', 'completed', hold);
  await finish('ann', 'triage', 'failed', 1);
  await finish('bob', 'reply', 'completed', 20);
});

afterAll(async () => {
  await browser?.close();
  await classifier?.close();
  await fake?.close();
  await desk?.close();
  rmSync(folder, { recursive: true, force: true });
});

const tile = (page: Page, id: string) => page.getByTestId(`tile-${id}`).locator('dd').innerText();

/** The numbers of a chart's table for screen readers, summed per column. */
function columnTotals(page: Page, chart: string): Promise<Record<string, number>> {
  return page.getByTestId(chart).evaluate((figure) => {
    // The table follows the chart by a frame: none yet reads as no numbers yet.
    const table = figure.querySelector('table.chart-data');
    if (!table) return {};
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
  // A layout property, not a time budget: whatever order the answers arrive in, nothing the user
  // already sees moves (the classifier's card used to paint first and be pushed 660 px down).
  it.each(['desktop', 'phone'] as const)(
    'does not jump while it loads (%s: cumulative layout shift under 0.05)',
    async (viewport) => {
      const { page, context, errors } = await openDesk(browser, desk.url, {
        path: '/',
        viewport,
        init: TRACK_LAYOUT_SHIFT,
      });
      await eventually(() => tile(page, 'created')).toBe('9');
      await eventually(() => page.getByTestId('usage-panel').locator('figcaption').count()).toBe(2);
      await eventually(() => page.locator('table.chart-data').count()).toBe(4);
      expect(await layoutShift(page)).toBeLessThan(0.05);
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('is the first screen, and its numbers as text are the seeded ones (desktop)', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/', viewport: 'desktop' });
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Dashboard' })
        .getAttribute('aria-current'),
    ).toBe('page');
    await eventually(() => tile(page, 'created')).toBe('9');
    expect(await tile(page, 'queued')).toBe('4');
    expect(await tile(page, 'completed')).toBe('4');
    expect(await tile(page, 'failed')).toBe('1');
    expect(await tile(page, 'in_progress')).toBe('0');
    expect(await tile(page, 'oldest-queued')).toMatch(/^\d+(\.\d)? (ms|s)$/);

    await eventually(() => columnTotals(page, 'chart-flow')).toEqual({ Created: 9, Completed: 4, Failed: 1 });
    expect(await page.getByTestId('chart-flow').locator('figcaption').innerText()).toBe(
      'Last 7 days: 9 created, 4 completed, 1 failed.',
    );
    expect(await page.getByTestId('chart-depth').locator('figcaption').innerText()).toContain(
      'Now: 4 queued, 0 dispatched, 0 in progress, 0 blocked.',
    );
    // The canvas is drawn, as wide as its card.
    const canvas = await page.getByTestId('chart-flow').locator('canvas').first().boundingBox();
    expect(canvas!.width).toBeGreaterThan(300);

    const rows = await page
      .getByTestId('agents-table')
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())),
      );
    expect(rows.map((row) => row.slice(0, 4))).toEqual([
      ['ann', '3', '1', '25%'],
      ['bob', '1', '0', '0%'],
    ]);
    // The lead times are the API's, as the page writes durations under a minute.
    const stats = (await desk.api('GET', '/work/stats?days=7')).body;
    const shown = (seconds: number) =>
      seconds < 1
        ? `${Math.round(seconds * 1000)} ms`
        : seconds < 10
          ? `${seconds.toFixed(1)} s`
          : `${Math.round(seconds)} s`;
    expect(rows.map((row) => row.slice(4))).toEqual(
      stats.agents.map((a: any) => [shown(a.lead_time_median_s), shown(a.lead_time_p90_s)]),
    );
    // The classifier: what the fake provider counted, and the cost of its tokens at the set prices.
    const billed = fake.usage();
    expect(billed.requests).toBe(3);
    const cost = (billed.input_tokens * 2 + billed.output_tokens * 8) / 1_000_000;
    const usage = page.getByTestId('usage-panel');
    await eventually(() => usage.locator('figcaption').first().innerText()).toBe(
      'Last 7 days: 3 provider calls, 1 duplicates answered from the store.',
    );
    // The currency's symbol is the browser locale's ($ or US$): the number is what counts.
    const costText = await usage.locator('figcaption').nth(1).innerText();
    expect(Number(/^Estimated cost over 7 days: \D*([\d.]+)\.$/.exec(costText)?.[1]), costText).toBeCloseTo(cost, 4);
    await eventually(() => columnTotals(page, 'usage-calls')).toEqual({ Calls: 3, 'Duplicates saved': 1 });
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
    expect((await desk.api('POST', '/work', { type: 'reply', description: 'Arrived while watching' })).status).toBe(
      201,
    );
    await eventually(() => tile(page, 'queued')).toBe('5');
    expect(await tile(page, 'created')).toBe('10');
    await eventually(() => columnTotals(page, 'chart-flow')).toEqual({ Created: 10, Completed: 4, Failed: 1 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
