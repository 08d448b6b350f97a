import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

describe('projects', () => {
  it('creates, renames, edits and clears the external reference, refuses a duplicate name, and lists its items', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/projects' });
    const create = page.getByRole('form', { name: 'New project' });
    await create.getByLabel('New project name').fill('Billing');
    await create.getByLabel('External reference (optional)').fill('https://git.example/billing');
    await create.getByRole('button', { name: 'Create project' }).click();
    const card = page.getByRole('article', { name: 'Project Billing' });
    await card.waitFor();
    expect(await card.getByRole('link', { name: 'https://git.example/billing' }).count()).toBe(1);
    const [stored] = (await desk.api('GET', '/projects')).body;
    expect(stored).toMatchObject({ name: 'Billing', external_ref: 'https://git.example/billing' });

    // The same name again, in other case: the service's 409 in its words.
    await create.getByLabel('New project name').fill('BILLING');
    await create.getByRole('button', { name: 'Create project' }).click();
    await eventually(() => create.getByRole('alert').count()).toBe(1);
    expect((await create.getByRole('alert').innerText()).toLowerCase()).toContain('billing');

    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit project Billing' });
    await edit.getByLabel('Name').fill('Billing platform');
    await edit.getByLabel('External reference (empty clears it)').fill('BILL-1');
    await edit.getByRole('button', { name: 'Save' }).click();
    const renamed = page.getByRole('article', { name: 'Project Billing platform' });
    await renamed.waitFor();
    expect(await renamed.innerText()).toContain('BILL-1');
    expect((await desk.api('GET', `/projects/${stored.id}`)).body).toMatchObject({
      name: 'Billing platform',
      external_ref: 'BILL-1',
    });

    await renamed.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('External reference (empty clears it)').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(async () => (await desk.api('GET', `/projects/${stored.id}`)).body.external_ref).toBeNull();

    // "Add work" opens the submit form with the project chosen.
    await renamed.getByRole('link', { name: 'Add work' }).click();
    await eventually(() => page.getByLabel('Project', { exact: true }).inputValue()).toBe(stored.id);
    await page.getByLabel('Type').fill('bug_fix');
    await page.getByLabel('Description').fill('Invoice totals are off by a cent');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL(/#\/items\//);
    await eventually(() => page.getByRole('link', { name: 'Billing platform' }).count()).toBe(1);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
    const again = page.getByRole('article', { name: 'Project Billing platform' });
    await again.getByRole('button', { name: 'Items' }).click();
    await eventually(() => again.getByRole('link', { name: 'Invoice totals are off by a cent' }).count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('project items, live', () => {
  it('an item deleted elsewhere leaves the open project list at once', async () => {
    const { body: project } = await desk.api('POST', '/projects', { name: 'Live deletions' });
    const kept = await desk.api('POST', '/work', { type: 'bug_fix', description: 'Stays', project_id: project.id });
    const doomed = await desk.api('POST', '/work', {
      type: 'bug_fix',
      description: 'Deleted by a script',
      project_id: project.id,
    });
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/projects' });
    const card = page.getByRole('article', { name: 'Project Live deletions' });
    await card.getByRole('button', { name: 'Items' }).click();
    await eventually(() => card.locator('tr[data-id]').count()).toBe(2);
    await eventually(() => page.getByRole('status').filter({ hasText: 'Live' }).count()).toBe(1);

    expect((await desk.api('DELETE', `/work/${doomed.body.id}`)).status).toBe(204);
    await eventually(() => card.locator(`tr[data-id="${doomed.body.id}"]`).count()).toBe(0);
    expect(await card.locator(`tr[data-id="${kept.body.id}"]`).count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('agents', () => {
  it("shows each agent's dispatched, in-progress and blocked work, and nothing finished", async () => {
    const make = async (description: string, agent: string, moves: object[]) => {
      const id = (await desk.api('POST', '/work', { type: 'bug_fix', description, agent })).body.id;
      for (const move of moves) await desk.api('PATCH', `/work/${id}`, move);
    };
    await make('Ada dispatched', 'ada', []);
    await make('Ada working', 'ada', [{ status: 'in_progress' }]);
    await make('Ada blocked', 'ada', [{ status: 'in_progress' }, { status: 'blocked' }]);
    await make('Ada finished', 'ada', [{ status: 'in_progress' }, { status: 'completed', outcome: 'success' }]);
    await make('Bob dispatched', 'bob', []);

    const { page, context } = await openDesk(browser, desk.url, { path: '/#/agents' });
    const ada = page.getByRole('article', { name: 'Agent ada' });
    await ada.waitFor();
    expect(await ada.innerText()).toContain('1 in progress · 1 blocked · 1 dispatched');
    expect(await ada.getByRole('link').allInnerTexts()).toEqual([
      'ada',
      'Ada working',
      'Ada blocked',
      'Ada dispatched',
    ]);
    expect(
      await page.getByRole('article', { name: 'Agent bob' }).getByRole('link', { name: 'Bob dispatched' }).count(),
    ).toBe(1);
    // The type names in the small print stay readable: no smaller than 12 px.
    const typeSizes = await page.evaluate<number[]>(
      `[...document.querySelectorAll('.agent-card .agent-item-meta code')].map((e) => parseFloat(getComputedStyle(e).fontSize))`,
    );
    expect(typeSizes.length).toBeGreaterThanOrEqual(4);
    for (const size of typeSizes) expect(size).toBeGreaterThanOrEqual(12);

    // The agent's name opens the board filtered to that agent.
    await ada.getByRole('link', { name: 'ada', exact: true }).click();
    await eventually(() => page.locator('table.items tbody tr').count()).toBe(4);
    await context.close();
  });
});
