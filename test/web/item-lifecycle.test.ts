import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
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

describe('an item through its life in the browser', () => {
  it('asks who I am once, submits, dispatches, picks up, completes and shows the dispatch log', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { user: null });

    // "Who am I" comes first, and is keyboard-only.
    const who = page.getByRole('dialog', { name: 'Who are you?' });
    await who.waitFor();
    await page.keyboard.type('alice');
    await page.keyboard.press('Enter');
    await who.waitFor({ state: 'hidden' });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Submit' }).click();
    await page.getByLabel('Type').fill('code_review');
    await page.getByLabel('Description').fill('Review PR #42 of the billing API');
    await page.getByLabel('Priority').selectOption('2');

    // A payload that is not JSON is stopped before anything is sent.
    await page.getByLabel('Payload (JSON object, optional)').fill('{"pr": 42,');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await eventually(() => page.locator('#payload-error').innerText()).toContain('Not valid JSON');
    expect((await desk.api('GET', '/work')).body).toEqual([]);

    await page.getByLabel('Payload (JSON object, optional)').fill('{"pr": 42, "repo": "acme/billing"}');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL(/#\/items\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;

    const heading = page.getByRole('heading', { level: 1 });
    await eventually(() => heading.innerText()).toBe('Review PR #42 of the billing API');
    await eventually(() => page.locator('pre.payload').innerText()).toContain('"repo": "acme/billing"');
    const status = page.locator('dl.fields .badge');
    expect(await status.innerText()).toBe('queued');

    // Only the moves a queued item allows are offered.
    const actions = page.getByRole('region', { name: 'Actions' });
    expect(await actions.getByRole('button').allInnerTexts()).toEqual(['Dispatch', 'Cancel item', 'Delete…']);

    await actions.getByLabel('Dispatch to agent').fill('codex-1');
    await actions.getByLabel('Dispatch to agent').press('Enter');
    await eventually(() => status.innerText()).toBe('dispatched');

    await actions.getByRole('button', { name: 'Pick up' }).click();
    await eventually(() => status.innerText()).toBe('in progress');

    // Keyboard: focus the Complete button and press Enter.
    await actions.getByRole('button', { name: 'Complete' }).focus();
    await page.keyboard.press('Enter');
    await eventually(() => status.innerText()).toBe('completed');

    const log = page.getByRole('list', { name: 'Dispatch log, oldest first' });
    await eventually(() => log.locator('li').count()).toBe(1);
    expect(await log.locator('li').first().innerText()).toMatch(/codex-1\s+success/);
    expect(await actions.innerText()).toContain('only its notes can change');

    const stored = await desk.api('GET', `/work/${id}`);
    expect(stored.body).toMatchObject({
      status: 'completed',
      outcome: 'success',
      priority: 2,
      created_by: 'alice',
      assigned_agent: 'codex-1',
      payload: { pr: 42, repo: 'acme/billing' },
    });
    expect(stored.body.dispatch_log).toHaveLength(1);

    // The audit trail: every change with who made it, oldest first, following live changes.
    const history = page.getByRole('list', { name: 'Timeline, oldest first' });
    await eventually(() => history.locator('li[data-kind="change"]').count()).toBe(4);
    const lines = await history.locator('li[data-kind="change"]').allInnerTexts();
    expect(lines[0]).toMatch(/Created by alice \(admin\): Status: — → queued/);
    expect(lines[1]).toMatch(/Dispatched by alice \(admin\): .*Assigned agent: — → codex-1/);
    expect(lines[2]).toMatch(/Picked up by alice \(admin\): .*Status: dispatched → in progress/);
    expect(lines[3]).toMatch(/Completed by alice \(admin\): .*Status: in progress → completed/);
    // In words and local times, as the rest of the page: no column names, no ISO instants.
    for (const line of lines) {
      expect(line).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
      expect(line).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
    }
    // The tab names the item, not the board.
    expect(await page.title()).toBe('Review PR #42 of the billing API · agentdesk');

    await screenshot(page, 'item-completed-laptop');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('offers release, reassign, block, unblock, fail with notes, notes editing and delete with a confirmation', async () => {
    const created = await desk.api('POST', '/work', { type: 'bug_fix', description: 'Fix the flaky login test' });
    const id = created.body.id as string;
    const { page, context, errors } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    const actions = page.getByRole('region', { name: 'Actions' });
    const status = page.locator('dl.fields .badge');
    const agent = page.locator('dl.fields dt:text-is("Assigned agent") + dd');
    await status.waitFor();

    await actions.getByLabel('Dispatch to agent').fill('codex-1');
    await actions.getByRole('button', { name: 'Dispatch' }).click();
    await eventually(() => status.innerText()).toBe('dispatched');
    expect(await actions.getByRole('button').allInnerTexts()).toEqual([
      'Reassign',
      'Pick up',
      'Release',
      'Cancel item',
      'Delete…',
    ]);

    await actions.getByRole('button', { name: 'Release' }).click();
    await eventually(() => status.innerText()).toBe('queued');
    expect(await agent.innerText()).toBe('—');

    await actions.getByLabel('Dispatch to agent').fill('codex-1');
    await actions.getByRole('button', { name: 'Dispatch' }).click();
    await eventually(() => status.innerText()).toBe('dispatched');
    await actions.getByLabel('Reassign to agent').fill('claude-2');
    await actions.getByRole('button', { name: 'Reassign' }).click();
    await eventually(() => agent.innerText()).toBe('claude-2');

    await actions.getByRole('button', { name: 'Pick up' }).click();
    await eventually(() => status.innerText()).toBe('in progress');
    await actions.getByRole('button', { name: 'Block' }).click();
    await eventually(() => status.innerText()).toBe('blocked');
    expect(await actions.getByRole('button').allInnerTexts()).toEqual(['Reassign', 'Unblock', 'Fail…', 'Delete…']);
    await actions.getByRole('button', { name: 'Unblock' }).click();
    await eventually(() => status.innerText()).toBe('in progress');

    await actions.getByRole('button', { name: 'Fail…' }).click();
    await actions.getByLabel("Why did it fail? (saved as the item's notes)").fill('The test database was down.');
    await actions.getByRole('button', { name: 'Mark failed' }).click();
    await eventually(() => status.innerText()).toBe('failed');
    const notes = page.getByRole('region', { name: 'Notes' });
    await eventually(() => notes.locator('p.notes').innerText()).toBe('The test database was down.');

    // The log: codex-1 (released), codex-1 again (reassigned away), claude-2 (failed).
    const log = page.getByRole('list', { name: 'Dispatch log, oldest first' });
    await eventually(() => log.locator('li').allInnerTexts()).toEqual([
      expect.stringMatching(/^codex-1\s+cancelled/),
      expect.stringMatching(/^codex-1\s+cancelled/),
      expect.stringMatching(/^claude-2\s+failed/),
    ]);

    // Notes stay editable on a final item.
    await notes.getByRole('button', { name: 'Edit notes' }).click();
    await notes.getByLabel('Notes').fill('Database was down; rerun tomorrow.');
    await notes.getByRole('button', { name: 'Save notes' }).click();
    await eventually(() => notes.locator('p.notes').innerText()).toBe('Database was down; rerun tomorrow.');
    expect((await desk.api('GET', `/work/${id}`)).body.notes).toBe('Database was down; rerun tomorrow.');

    // Delete asks first; "Keep it" keeps it.
    await actions.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this work item?' });
    await confirm.waitFor();
    await screenshot(page, 'item-delete-confirm-laptop');
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect((await desk.api('GET', `/work/${id}`)).status).toBe(200);

    await actions.getByRole('button', { name: 'Delete…' }).click();
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL(/#\/$/);
    expect((await desk.api('GET', `/work/${id}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('cancels a queued item', async () => {
    const created = await desk.api('POST', '/work', { type: 'bug_fix', description: 'Obsolete task' });
    const { page, context } = await openDesk(browser, desk.url, { path: `/#/items/${created.body.id}` });
    await page.getByRole('button', { name: 'Cancel item' }).click();
    await eventually(() => page.locator('dl.fields .badge').innerText()).toBe('cancelled');
    expect((await desk.api('GET', `/work/${created.body.id}`)).body.outcome).toBe('cancelled');
    await context.close();
  });

  it('tells a stale view that the item changed, names what changed, and shows its real state', async () => {
    const created = await desk.api('POST', '/work', { type: 'bug_fix', description: 'Raced by another agent' });
    const id = created.body.id as string;
    const { page, context } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    // Without the live stream the page keeps showing the item as queued after it changes.
    await page.route('**/events', (route) => route.abort());
    await page.reload();
    const status = page.locator('dl.fields .badge');
    await eventually(() => status.innerText()).toBe('queued');

    expect((await desk.api('PATCH', `/work/${id}`, { status: 'cancelled', outcome: 'cancelled' })).status).toBe(200);

    const actions = page.getByRole('region', { name: 'Actions' });
    await actions.getByLabel('Dispatch to agent').fill('codex-1');
    await actions.getByRole('button', { name: 'Dispatch' }).click();

    // The page sent the version it showed, so the service refused with 412 rather than
    // judging the move against a state the user never saw.
    const alert = actions.getByRole('alert');
    await eventually(() => alert.innerText()).toContain('This item changed since you loaded it');
    expect(await alert.innerText()).toContain('Status: queued → cancelled');
    await eventually(() => status.innerText()).toBe('cancelled');
    expect(await actions.innerText()).toContain('only its notes can change');
    expect((await desk.api('GET', `/work/${id}`)).body.dispatch_log).toEqual([]);
    await screenshot(page, 'item-refused-laptop');
    await context.close();
  });

  it('shows a 422 with the field the service names', async () => {
    const created = await desk.api('POST', '/work', { type: 'bug_fix', description: 'Bad agent name' });
    const { page, context } = await openDesk(browser, desk.url, { path: `/#/items/${created.body.id}` });
    const actions = page.getByRole('region', { name: 'Actions' });
    // The browser's own pattern check would stop this; the service must still answer in words.
    await actions.getByLabel('Dispatch to agent').evaluate((input) => input.removeAttribute('pattern'));
    await actions.getByLabel('Dispatch to agent').fill('not a valid name!');
    await actions.getByRole('button', { name: 'Dispatch' }).click();
    const alert = actions.getByRole('alert');
    await eventually(() => alert.innerText()).toContain('agent');
    expect(await page.locator('dl.fields .badge').innerText()).toBe('queued');
    await context.close();
  });
});
