import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot, VIEWPORTS } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// One screenshot of every main screen at a laptop's and a phone's width, over a small desk
// that looks like a working day, for a person to look at (test-artifacts/, not committed).

let desk: Desk;
let browser: Browser;
let itemId: string;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
  const payments = (
    await desk.api('POST', '/projects', { name: 'Payments', external_ref: 'https://github.com/acme/payments' })
  ).body.id;
  const infra = (await desk.api('POST', '/projects', { name: 'Infrastructure', external_ref: 'JIRA-INFRA' })).body.id;
  const work = [
    {
      type: 'code_review',
      description: 'Review PR #812: idempotency keys for card charges',
      priority: 2,
      agent: 'claude-2',
      project_id: payments,
    },
    {
      type: 'bug_fix',
      description: 'Double charge when the card network times out and the client retries',
      priority: 1,
      agent: 'codex-7',
      project_id: payments,
    },
    {
      type: 'infra_setup',
      description: 'Provision the staging PostgreSQL 17 cluster with PITR',
      priority: 3,
      agent: 'ops-bot',
      project_id: infra,
    },
    {
      type: 'bug_fix',
      description: 'Flaky test: refunds.spec.ts fails one run in twenty',
      priority: 4,
      project_id: payments,
    },
    { type: 'email_task', description: 'Approve the Q3 budget by Friday', priority: 1 },
    {
      type: 'code_review',
      description: 'Review PR #815: rotate webhook secrets',
      priority: 3,
      agent: 'claude-2',
      project_id: payments,
    },
    {
      type: 'infra_setup',
      description: 'Move DNS for status.acme.example to the new provider',
      priority: 5,
      project_id: infra,
    },
  ];
  const ids: string[] = [];
  for (const w of work)
    ids.push(
      (await desk.api('POST', '/work', { ...w, payload: { source: 'screens test', n: ids.length } }, 'lead')).body.id,
    );
  await desk.api('PATCH', `/work/${ids[1]}`, { status: 'in_progress', notes: 'Reproduced with a 30 s network delay.' });
  await desk.api('PATCH', `/work/${ids[2]}`, { status: 'in_progress' });
  await desk.api('PATCH', `/work/${ids[2]}`, { status: 'blocked', notes: 'Waiting for the VPC quota increase.' });
  await desk.api('PATCH', `/work/${ids[5]}`, { status: 'in_progress' });
  await desk.api('PATCH', `/work/${ids[5]}`, { status: 'completed', outcome: 'success' });
  await desk.api('PATCH', `/work/${ids[6]}`, { status: 'cancelled', outcome: 'cancelled' });
  itemId = ids[1]!;
  await desk.api('PATCH', `/work/${itemId}`, { agent: 'claude-2' });
  await desk.api('PATCH', `/work/${itemId}`, { status: 'in_progress' });
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

async function settle(page: Page) {
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await page
    .locator('[aria-busy="true"]')
    .waitFor({ state: 'detached', timeout: 5_000 })
    .catch(() => undefined);
}

describe('screenshots of the main screens', () => {
  for (const viewport of Object.keys(VIEWPORTS) as (keyof typeof VIEWPORTS)[]) {
    it(`at a ${viewport}'s width`, async () => {
      const { page, context, errors } = await openDesk(browser, desk.url, { viewport, user: null });
      await page.getByRole('dialog', { name: 'Who are you?' }).waitFor();
      await screenshot(page, `who-am-i-${viewport}`);
      await page.getByLabel('Your name').fill('alice');
      await page.getByRole('button', { name: 'Continue' }).click();

      await eventually(() => page.locator('table.items tbody tr').count()).toBe(7);
      await settle(page);
      await screenshot(page, `board-${viewport}`);

      await page.goto(`${desk.url}/#/items/${itemId}`);
      await page.getByRole('list', { name: 'Dispatch log, oldest first' }).waitFor();
      await screenshot(page, `item-${viewport}`);

      await page.goto(`${desk.url}/#/new`);
      await page.getByLabel('Payload (JSON object, optional)').fill('{"pr": 9');
      await page.getByLabel('Payload (JSON object, optional)').blur();
      await screenshot(page, `submit-${viewport}`);

      await page.goto(`${desk.url}/#/agents`);
      await page.getByRole('article', { name: 'Agent claude-2' }).waitFor();
      await screenshot(page, `agents-${viewport}`);

      await page.goto(`${desk.url}/#/projects`);
      const project = page.getByRole('article', { name: 'Project Payments' });
      await project.getByRole('button', { name: 'Items' }).click();
      await project.locator('table.items').waitFor();
      await page.getByRole('article', { name: 'Project Infrastructure' }).getByRole('button', { name: 'Edit' }).click();
      await screenshot(page, `projects-${viewport}`);

      await page.goto(`${desk.url}/#/classify`);
      await page.getByRole('heading', { name: 'Classify an email' }).waitFor();
      await screenshot(page, `classify-${viewport}`);

      // Nothing spills sideways at this width.
      for (const path of ['/#/', `/#/items/${itemId}`, '/#/new', '/#/agents', '/#/projects', '/#/classify']) {
        await page.goto(desk.url + path);
        await settle(page);
        const overflow = await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(overflow, path).toBe(0);
      }
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('in the dark', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.laptop, colorScheme: 'dark', baseURL: desk.url });
    await context.addInitScript({ content: `localStorage.setItem('agentdesk.user', 'alice');` });
    const page = await context.newPage();
    await page.goto(`/#/items/${itemId}`);
    await page.getByRole('list', { name: 'Dispatch log, oldest first' }).waitFor();
    await screenshot(page, 'item-dark-laptop');
    await page.goto('/#/');
    await eventually(() => page.locator('table.items tbody tr').count()).toBe(7);
    await screenshot(page, 'board-dark-laptop');
    await context.close();
  });
});
