import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// Bidi controls in user text (the "Trojan Source" trick: an override makes
// "invoice‮fdp.exe" read "invoiceexe.pdf") must not reach the page as controls. The UI shows each
// as a visible ‹U+202E› and isolates user text in <bdi>, so it cannot reorder the page around it.

const RLO = '\u202e';
const DESCRIPTION = `invoice${RLO}fdp.exe`;
const SHOWN = 'invoice\u2039U+202E\u203afdp.exe';
const PROJECT = `\u2067${RLO}evil project`;
const PROJECT_SHOWN = '\u2039U+2067\u203a\u2039U+202E\u203aevil project';
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;

let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

describe('bidi controls in user text', () => {
  it('are shown as visible escapes inside <bdi>, on the board, the item, the agents and the projects pages', async () => {
    const project = await desk.api('POST', '/projects', { name: PROJECT });
    expect(project.status).toBe(201);
    const item = await desk.api('POST', '/work', {
      type: 'bidi',
      description: DESCRIPTION,
      agent: 'agent-b',
      project_id: project.body.id,
    });
    expect(item.status).toBe(201);

    const { page, context, errors } = await openDesk(browser, desk.url);
    const link = page.getByRole('link', { name: SHOWN, exact: true });
    await link.waitFor();
    expect(await link.locator('bdi').count()).toBe(1);
    await eventually(() => page.locator('table.items').innerText()).toContain(PROJECT_SHOWN);
    expect(await page.locator('main').innerText()).not.toMatch(BIDI_CONTROLS);
    const options = await page.locator('select[name="project_id"] option').allInnerTexts();
    expect(options).toContain(PROJECT_SHOWN);
    await screenshot(page, 'bidi-board-laptop');

    await link.click();
    const heading = page.getByRole('heading', { level: 1 });
    await eventually(() => heading.innerText()).toBe(SHOWN);
    expect(await heading.locator('bdi').count()).toBe(1);
    expect(await page.locator('main').innerText()).not.toMatch(BIDI_CONTROLS);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: SHOWN, exact: true }).waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(BIDI_CONTROLS);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('heading', { name: PROJECT_SHOWN }).waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(BIDI_CONTROLS);

    expect(errors).toEqual([]);
    await context.close();
  });
});
