import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot, VIEWPORTS } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// On a 390 px phone: every page reachable from the menu without sideways scrolling, no
// page wider than the screen (the Tokens page's Revoke buttons were off it), the dashboard's
// agents whole (names unbroken, lead times in view) and its text legible (none under 12 px).
// And the Tokens page of an AUTH=off desk: it says tokens do nothing there, shows the X-User
// MCP configuration, and an empty state instead of a bare table header.

let desk: Desk;
let browser: Browser;
const PHONE = VIEWPORTS.phone.width;
const AGENTS = ['reviewer-bot-7', 'triage-assistant'];

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
  for (const agent of AGENTS) {
    for (let i = 0; i < 2; i += 1) {
      expect((await desk.api('POST', '/work', { type: 'phone_check', description: `For ${agent} ${i}` })).status).toBe(
        201,
      );
      const claimed = await desk.api('POST', '/work/claim', { agent, types: ['phone_check'], lease_s: 60 }, agent);
      expect(claimed.status).toBe(200);
      const done = await desk.api(
        'PATCH',
        `/work/${claimed.body.id}`,
        { status: 'completed', outcome: 'success' },
        agent,
      );
      expect(done.status).toBe(200);
    }
  }
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

/** How far the page reaches past the screen's right edge, in CSS pixels (0: it fits). */
const overflow = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

describe('on a 390 px phone', () => {
  it('reaches every page from the menu without sideways scrolling, and no page is wider than the screen', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { viewport: 'phone', path: '/#/' });
    const nav = page.getByRole('navigation', { name: 'Main' });
    const labels = await nav.getByRole('link').allInnerTexts();
    expect(labels).toEqual([
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
    // The admin's own pages are one menu away; it opens inside the screen too.
    const admin = nav.getByText('Admin', { exact: true });
    await admin.click();
    const grouped = ['Mailboxes', 'Tokens', 'People', 'Webhooks'];
    expect(await nav.getByRole('link').allInnerTexts()).toEqual([...labels, ...grouped]);
    await admin.click();
    // The menu itself does not scroll: every link lies inside the screen.
    expect(await nav.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    for (const label of [...labels, ...grouped]) {
      if (grouped.includes(label)) await admin.click();
      const link = nav.getByRole('link', { name: label, exact: true });
      const box = (await link.boundingBox())!;
      expect(box.x, label).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, label).toBeLessThanOrEqual(PHONE);
      await link.click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await overflow(page), label).toBe(0);
      if (grouped.includes(label)) {
        // Choosing an entry closes the menu; the menu's button shows it holds the current page.
        expect(await nav.getByRole('link', { name: label, exact: true }).count(), label).toBe(0);
        expect(await page.evaluate('location.hash'), label).toBe(`#/${label.toLowerCase()}`);
      } else {
        await eventually(() => link.getAttribute('aria-current')).toBe('page');
      }
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the dashboard’s agents whole and its text at 12 px or more', async () => {
    const { page, context } = await openDesk(browser, desk.url, { viewport: 'phone', path: '/#/dashboard' });
    const table = page.getByTestId('agents-table');
    await eventually(() => table.locator('tbody tr').count()).toBe(2);
    await page.getByTestId('usage-panel').waitFor();
    expect(await overflow(page)).toBe(0);
    for (const agent of AGENTS) {
      const row = table.locator(`tr[data-agent="${agent}"]`);
      // The name on one line: a name broken mid-word gives two line boxes.
      const lines = await row.getByRole('link', { name: agent }).evaluate((a: any) => {
        const range = a.ownerDocument.createRange();
        range.selectNodeContents(a);
        return new Set([...range.getClientRects()].map((r: any) => Math.round(r.top))).size;
      });
      expect(lines, agent).toBe(1);
      // Every figure, the lead times included, inside the screen and not clipped by a scroller.
      for (const cell of await row.locator('td').all()) {
        const box = (await cell.boundingBox())!;
        expect(box.x + box.width, await cell.innerText()).toBeLessThanOrEqual(PHONE);
      }
      for (const label of ['Lead time, median', 'Lead time, p90']) {
        const cell = row.locator(`td[data-label="${label}"]`);
        expect(await cell.isVisible(), label).toBe(true);
        expect(await cell.innerText(), label).toMatch(/^\d/);
      }
    }
    // Legible: no visible text under 12 px (Lighthouse's "legible font sizes").
    const small = await page.evaluate<string[]>(`(() => {
      const found = [];
      const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent?.trim() ?? '';
        const parent = node.parentElement;
        if (text === '' || !parent || parent.closest('.visually-hidden') || parent.getClientRects().length === 0) continue;
        const size = parseFloat(getComputedStyle(parent).fontSize);
        if (size < 12) found.push(size + 'px: ' + text.slice(0, 40));
      }
      return found;
    })()`);
    expect(small).toEqual([]);
    await screenshot(page, 'dashboard-phone-agents');
    await context.close();
  });
});

describe('the Tokens page of an AUTH=off desk', () => {
  it('says tokens do nothing here, offers the X-User configuration and an empty state, then fits a phone with tokens', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { viewport: 'phone', path: '/#/tokens' });
    const notice = page.getByTestId('auth-off');
    await eventually(() => notice.innerText()).toContain('tokens do nothing here');
    await eventually(() => page.locator('main').innerText()).toContain('No tokens yet');
    expect(await page.locator('table.tokens').count()).toBe(0);

    // The MCP configurations for an agent that names itself (the page's user to start with).
    const http = () =>
      page
        .getByTestId('mcp-http')
        .innerText()
        .then((text) => JSON.parse(text).mcpServers.agentdesk);
    expect(await http()).toEqual({ type: 'http', url: `${desk.url}/mcp`, headers: { 'X-User': 'alice' } });
    await notice.getByLabel('Agent name').fill('night-owl');
    expect((await http()).headers).toEqual({ 'X-User': 'night-owl' });
    const stdio = JSON.parse(await page.getByTestId('mcp-stdio').innerText()).mcpServers.agentdesk;
    expect(stdio.env).toEqual({ AGENTDESK_URL: desk.url, AGENTDESK_AGENT: 'night-owl' });
    expect(stdio.args).toEqual([expect.stringMatching(/^\/.+\/dist\/src\/cli\/main\.js$/), 'mcp']);
    expect(await overflow(page)).toBe(0);
    await screenshot(page, 'tokens-auth-off-phone');

    for (const name of ['first-long-token-name', 'second']) {
      expect(
        (
          await desk.api('POST', '/tokens', {
            name,
            role: 'viewer',
            expires_at: new Date(Date.now() + 86_400_000).toISOString(),
          })
        ).status,
      ).toBe(201);
    }
    await page.reload();
    const revoke = page.getByRole('button', { name: 'Revoke first-long-token-name' });
    await revoke.waitFor();
    expect(await overflow(page)).toBe(0);
    const box = (await revoke.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE);
    await screenshot(page, 'tokens-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});
