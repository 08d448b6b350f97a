import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { VIEWPORTS } from './browser.js';

// What the pages' browser tests share on a desk with AUTH=tokens: calls to its API with a token,
// a minted token, and a browser context signed in through the sign-in page at a given width.

export type DeskCall = <T = any>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

/** Calls `url`'s API with `secret` as the bearer token; the body parsed when there is one. */
export function deskCall(url: () => string, secret: string): DeskCall {
  return async (method, path, body) => {
    const res = await fetch(url() + path, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  };
}

export async function mintToken(admin: DeskCall, role: string, name: string): Promise<string> {
  const { status, body } = await admin<{ token: string }>('POST', '/tokens', { role, name });
  expect(status).toBe(201);
  return body.token;
}

export interface SignedIn {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors in the page. */
  errors: string[];
  /** Native dialogs the page opened (each dismissed). */
  dialogs: string[];
}

/** A fresh context signed in with `token` at `viewport`, on `path` when one is given. */
export async function signIn(
  browser: Browser,
  url: string,
  token: string,
  viewport: keyof typeof VIEWPORTS,
  path?: string,
): Promise<SignedIn> {
  const context = await browser.newContext({
    baseURL: url,
    viewport: VIEWPORTS[viewport],
    colorScheme: 'light',
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto('/');
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').waitFor();
  if (path !== undefined) await page.goto(`/#${path}`);
  return { context, page, errors, dialogs };
}

/** No element wider than the window: nothing to scroll sideways on a phone. */
export async function fitsWidth(page: Page): Promise<void> {
  const over = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  expect(over).toBeLessThanOrEqual(0);
}
