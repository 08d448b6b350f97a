import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ARTIFACTS_DIR = join(repoRoot, 'test-artifacts');

export { CHROMIUM_PATH, launchBrowser } from '../support/chromium.js';

export const VIEWPORTS = {
  laptop: { width: 1366, height: 860 },
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

export interface DeskPage {
  context: BrowserContext;
  page: Page;
  /** Every dialog (alert, confirm, prompt) the page opened: the XSS test wants none. */
  dialogs: string[];
  /** Uncaught errors in the page. */
  errors: string[];
}

/** A fresh browser context on the desk, already past "who am I" unless `user` is null. */
export async function openDesk(
  browser: Browser,
  baseUrl: string,
  options: { user?: string | null; viewport?: keyof typeof VIEWPORTS; path?: string; init?: string } = {},
): Promise<DeskPage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: VIEWPORTS[options.viewport ?? 'laptop'],
    colorScheme: 'light',
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  // Fail a missing element with its own message well before the test's timeout.
  context.setDefaultTimeout(10_000);
  const user = options.user === undefined ? 'alice' : options.user;
  if (user !== null) {
    await context.addInitScript({ content: `localStorage.setItem('agentdesk.user', ${JSON.stringify(user)});` });
  }
  if (options.init !== undefined) await context.addInitScript({ content: options.init });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  // `#/` is the board; the bare address lands on the dashboard (tests of it pass `path: '/'`).
  await page.goto(options.path ?? '/#/');
  return { context, page, dialogs, errors };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
}

/** expect.poll with room for a real server and a real browser (the default gives up after 1 s). */
export function eventually<T>(read: () => T | Promise<T>) {
  return expect.poll(read, { timeout: 10_000, interval: 50 });
}

/** An init script that sums the page's layout shifts (as CLS counts them) into `window.__layoutShift`. */
export const TRACK_LAYOUT_SHIFT = `
  window.__layoutShift = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__layoutShift += entry.value;
  }).observe({ type: 'layout-shift', buffered: true });
`;

/** The layout shift summed so far, after two frames so the last paint is in. */
export function layoutShift(page: Page): Promise<number> {
  return page.evaluate<number>(
    'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.__layoutShift))))',
  );
}
