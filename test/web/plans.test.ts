import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// In the browser: an item's place in a plan (its parent, its sub-items with a progress
// bar, what it waits on and what waits on it, linked, with statuses), the board's "ready" filter
// and "waiting on N" marks, and setting a parent and dependencies when submitting and editing.
// On a laptop and on a 390 px phone.

let desk: Desk;
let browser: Browser;
let plan: { parent: { id: string }; steps: Record<'schema' | 'api' | 'docs', string> };

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
  const created = await desk.api('POST', '/work/plans', {
    parent: { type: 'epic', description: 'Ship the billing export' },
    steps: [
      { key: 'schema', type: 'ui_plan', description: 'Change the billing schema', priority: 1 },
      { key: 'api', type: 'ui_plan', description: 'Add the export endpoint', depends_on_keys: ['schema'] },
      { key: 'docs', type: 'ui_plan', description: 'Document the export', depends_on_keys: ['api', 'schema'] },
    ],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  plan = created.body;
  // The schema step is done: one of three completed, the endpoint ready, the docs waiting on it.
  const claimed = await desk.api('POST', '/work/claim', { agent: 'bot-1', types: ['ui_plan'] }, 'bot-1');
  expect(claimed.body.id).toBe(plan.steps.schema);
  expect(
    (await desk.api('PATCH', `/work/${plan.steps.schema}`, { status: 'completed', outcome: 'success' }, 'bot-1'))
      .status,
  ).toBe(200);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

const overflow = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
const card = (page: Page) => page.getByRole('region', { name: 'Plan' });
const rows = (page: Page, list: string) => card(page).getByRole('list', { name: list }).locator('li');

describe('plans on the item page', () => {
  for (const viewport of ['laptop', 'phone'] as const) {
    it(`the parent shows its sub-items with a progress bar, each linked with its status (${viewport})`, async () => {
      const { page, context, errors } = await openDesk(browser, desk.url, {
        viewport,
        path: `/#/items/${plan.parent.id}`,
      });
      await eventually(() => rows(page, 'Sub-items').count()).toBe(3);
      const bar = card(page).getByRole('progressbar', { name: 'Sub-items completed' });
      expect(await bar.getAttribute('aria-valuetext')).toBe('1 of 3 completed');
      expect(await bar.getAttribute('aria-valuenow')).toBe('1');
      const docs = rows(page, 'Sub-items').filter({ hasText: 'Document the export' });
      expect(await docs.locator('.badge').innerText()).toBe('queued');
      expect(await docs.locator('.wait-mark').innerText()).toBe('waiting on 1');
      expect(
        await rows(page, 'Sub-items').filter({ hasText: 'Change the billing schema' }).locator('.badge').innerText(),
      ).toBe('completed');
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      expect(await card(page).getByRole('link', { name: 'Add a sub-item' }).getAttribute('href')).toContain(
        `parent_id=${plan.parent.id}`,
      );
      await screenshot(page, `plan-parent-${viewport}`);
      await docs.getByRole('link').click();
      await eventually(() => page.locator('#item-title').innerText()).toBe('Document the export');
      expect(errors).toEqual([]);
      await context.close();
    });

    it(`a step shows its parent, what it waits on and what waits on it (${viewport})`, async () => {
      const { page, context, errors } = await openDesk(browser, desk.url, {
        viewport,
        path: `/#/items/${plan.steps.api}`,
      });
      await eventually(() => rows(page, 'Waits on').count()).toBe(1);
      expect(await card(page).getByRole('link', { name: 'Ship the billing export' }).getAttribute('href')).toContain(
        plan.parent.id,
      );
      expect(await rows(page, 'Waits on').first().innerText()).toMatch(/completed\s*Change the billing schema/);
      expect(await card(page).innerText()).toContain('Waits on (all completed)');
      await eventually(() => rows(page, 'Waited on by').count()).toBe(1);
      expect(await rows(page, 'Waited on by').first().innerText()).toMatch(
        /queued\s*waiting on 1\s*Document the export/,
      );
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `plan-step-${viewport}`);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('follows the plan live: a step completed elsewhere moves the bar and the marks without a reload', async () => {
    const { page, context } = await openDesk(browser, desk.url, { path: `/#/items/${plan.parent.id}` });
    const bar = card(page).getByRole('progressbar', { name: 'Sub-items completed' });
    await eventually(() => bar.getAttribute('aria-valuetext')).toBe('1 of 3 completed');
    const claimed = await desk.api('POST', '/work/claim', { agent: 'bot-2', types: ['ui_plan'] }, 'bot-2');
    expect(claimed.body.id).toBe(plan.steps.api);
    await eventually(() => bar.getAttribute('aria-valuetext')).toBe('1 of 3 completed, 1 in progress');
    await desk.api('PATCH', `/work/${plan.steps.api}`, { status: 'completed', outcome: 'success' }, 'bot-2');
    await eventually(() => bar.getAttribute('aria-valuetext')).toBe('2 of 3 completed');
    await eventually(() =>
      rows(page, 'Sub-items').filter({ hasText: 'Document the export' }).locator('.wait-mark').count(),
    ).toBe(0);
    await context.close();
  });
});

describe('the board', () => {
  it('shows "waiting on N" on a queued item that waits, and only ready items with the filter', async () => {
    const blocker = (await desk.api('POST', '/work', { type: 'board_wait', description: 'Blocker A' })).body;
    const other = (await desk.api('POST', '/work', { type: 'board_wait', description: 'Blocker B' })).body;
    await desk.api('POST', '/work', {
      type: 'board_wait',
      description: 'Waits on two',
      depends_on: [blocker.id, other.id],
    });
    const { page, context } = await openDesk(browser, desk.url, { path: '/#/?type=board_wait' });
    const row = (text: string) => page.locator('table.items tbody tr', { hasText: text });
    await eventually(() => row('Waits on two').locator('.wait-mark').innerText()).toBe('waiting on 2');
    expect(await row('Blocker A').locator('.wait-mark').count()).toBe(0);
    await page.getByLabel('Ready to claim only').check();
    await eventually(() => page.url()).toContain('ready=true');
    await eventually(() => page.locator('table.items tbody tr').count()).toBe(2);
    expect(await row('Waits on two').count()).toBe(0);
    // The counts are of what the board lists: the two ready items, not the three of the type.
    await eventually(() => page.locator('.count-n[data-status="all"]').innerText()).toBe('2');
    expect(await page.locator('.count-n[data-status="queued"]').innerText()).toBe('2');
    await screenshot(page, 'plan-board-ready-laptop');
    await context.close();

    const phone = await openDesk(browser, desk.url, { viewport: 'phone', path: '/#/?type=board_wait' });
    await eventually(() => phone.page.locator('.wait-mark').count()).toBe(1);
    expect(await overflow(phone.page)).toBeLessThanOrEqual(0);
    await screenshot(phone.page, 'plan-board-phone');
    await phone.context.close();
  });
});

describe('submit and edit set the parent and the dependencies', () => {
  it('picks a parent by words of its description and a dependency by id; the edit removes one and adds another', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/new' });
    await page.getByLabel('Type', { exact: true }).fill('ui_pick');
    await page.getByLabel('Description').fill('Announce the export');
    await page.getByLabel('Parent item').fill('billing export');
    await page.getByLabel('Parent item').press('Enter');
    await page
      .getByRole('list', { name: 'Parent item: found' })
      .getByRole('button', { name: /Ship the billing export/ })
      .click();
    await page.getByLabel('Waits on').fill(plan.steps.docs);
    await page.getByRole('button', { name: 'Find' }).last().click();
    await eventually(() => page.getByRole('list', { name: 'Waits on: chosen' }).innerText()).toContain(
      'Document the export',
    );
    await screenshot(page, 'plan-submit-laptop');
    await page.getByRole('button', { name: 'Submit' }).click();
    await eventually(() => page.locator('#item-title').innerText()).toBe('Announce the export');
    const id = /items\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    const created = (await desk.api('GET', `/work/${id}`)).body;
    expect(created).toMatchObject({ parent_id: plan.parent.id, depends_on: [plan.steps.docs] });

    await page.getByRole('button', { name: 'Edit item' }).click();
    const form = page.getByRole('form', { name: 'Edit item' });
    await form.getByRole('button', { name: 'Remove Document the export' }).click();
    await form.getByLabel('Waits on').fill(plan.steps.schema);
    await form.getByLabel('Waits on').press('Enter');
    await eventually(() => form.getByRole('list', { name: 'Waits on: chosen' }).innerText()).toContain(
      'Change the billing schema',
    );
    await form.getByRole('button', { name: 'Remove Ship the billing export' }).click();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await eventually(async () => (await desk.api('GET', `/work/${id}`)).body.depends_on).toEqual([plan.steps.schema]);
    expect((await desk.api('GET', `/work/${id}`)).body.parent_id).toBeNull();
    await eventually(() => rows(page, 'Waits on').count()).toBe(1);
    // The timeline says what the edit did to the links, each other item by its short id, linked.
    const short = (itemId: string) => itemId.slice(0, 8);
    const timeline = page.getByRole('list', { name: 'Timeline, oldest first' });
    const edit = timeline.locator('li[data-kind="change"]', { hasText: 'Waits on:' });
    await eventually(() => edit.count()).toBe(1);
    expect(await edit.innerText()).toMatch(
      new RegExp(
        `Edited by .*: .*Part of: ${short(plan.parent.id)} → —.*Waits on: added ${short(plan.steps.schema)}, removed ${short(plan.steps.docs)}`,
      ),
    );
    expect(await edit.getByRole('link', { name: short(plan.steps.schema) }).getAttribute('href')).toBe(
      `#/items/${plan.steps.schema}`,
    );
    await screenshot(page, 'plan-edit-timeline-laptop');
    expect(errors).toEqual([]);
    await context.close();
  });
});
