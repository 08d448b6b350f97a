import { existsSync } from 'node:fs';
import { CHROMIUM_PATH, launchBrowser } from '../../test/support/chromium.js';

// The board's first rows in Chromium, for bench:scale: each load in a fresh browser context
// (nothing cached), timed by the page itself from the start of navigation, so the figure holds
// the script, the list's request and the render, as a person opening the desk waits for them.

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

export type ViewportName = keyof typeof VIEWPORTS;

export interface FirstRowsResult {
  viewport: ViewportName;
  loads: number;
  /** First row in the document with a box of its own, ms from navigation start. */
  in_dom_median_ms: number;
  /** The frame after that one: the row has been painted. */
  median_ms: number;
  p99_ms: number;
  max_ms: number;
  /** When the list's response had arrived, median: what of the wait is the server's. */
  list_answered_median_ms: number;
  script_loaded_median_ms: number;
}

/**
 * A row of the board's table (web/src/components/item-table.tsx) that has layout. A
 * MutationObserver sees it go in; a task queued after the next animation frame runs once that
 * frame, the first to hold the row, has been produced.
 */
const ROW_WATCH = `
const marks = (window.__firstRows = {});
new MutationObserver((_, observer) => {
  const row = document.querySelector('table.items tbody tr[data-id]');
  if (!row || row.getBoundingClientRect().height === 0) return;
  observer.disconnect();
  marks.inDom = performance.now();
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { marks.painted = performance.now(); };
    channel.port2.postMessage(null);
  });
}).observe(document, { childList: true, subtree: true });`;

interface Sample {
  inDom: number;
  painted: number;
  listAnswered: number;
  scriptLoaded: number;
}

const quantile = (sorted: number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const round = (ms: number) => Math.round(ms * 10) / 10;

/** `loads` timed loads of the board (`#/`) at each viewport after one untimed; null without Chromium. */
export async function firstRowsInChromium(
  baseUrl: string,
  loads: Partial<Record<ViewportName, number>>,
): Promise<FirstRowsResult[] | null> {
  if (!existsSync(CHROMIUM_PATH)) return null;
  const browser = await launchBrowser();
  const results: FirstRowsResult[] = [];
  try {
    for (const [viewport, count] of Object.entries(loads) as [ViewportName, number][]) {
      const samples: Sample[] = [];
      for (let i = 0; i <= count; i += 1) {
        const context = await browser.newContext({ viewport: VIEWPORTS[viewport] });
        // The service's default sign-in: the user the UI remembers, sent as x-user.
        await context.addInitScript({ content: `localStorage.setItem('agentdesk.user', 'bench');${ROW_WATCH}` });
        const page = await context.newPage();
        await page.goto(`${baseUrl}/#/`);
        // Functions, not strings: the page's CSP forbids evaluating strings in it.
        await page.waitForFunction(
          () => (globalThis as { __firstRows?: { painted?: number } }).__firstRows?.painted !== undefined,
          undefined,
          { timeout: 30_000 },
        );
        const sample = await page.evaluate(() => {
          const marks = (globalThis as unknown as { __firstRows: { inDom: number; painted: number } }).__firstRows;
          const resources = performance.getEntriesByType('resource') as unknown as {
            name: string;
            responseEnd: number;
          }[];
          const end = (match: RegExp) => resources.find((e) => match.test(e.name))?.responseEnd ?? -1;
          return {
            inDom: marks.inDom,
            painted: marks.painted,
            listAnswered: end(/\/work\?/),
            scriptLoaded: end(/\/assets\/index-[^/]*\.js$/),
          };
        });
        // The first load warms the service and the browser, as the HTTP timings' warm-up does.
        if (i > 0) samples.push(sample);
        await context.close();
      }
      const painted = samples.map((s) => s.painted).sort((a, b) => a - b);
      results.push({
        viewport,
        loads: samples.length,
        in_dom_median_ms: round(median(samples.map((s) => s.inDom))),
        median_ms: round(quantile(painted, 0.5)),
        p99_ms: round(quantile(painted, 0.99)),
        max_ms: round(painted.at(-1) ?? Number.NaN),
        list_answered_median_ms: round(median(samples.map((s) => s.listAnswered))),
        script_loaded_median_ms: round(median(samples.map((s) => s.scriptLoaded))),
      });
    }
  } finally {
    await browser.close();
  }
  return results;
}
