import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// The item page in the agent loop: every change it sends is guarded by the version it shows
// (If-Match), a stale view is told so with the fresh item, and the lease, the attempts, run_after
// and why each dispatch closed are on the page.

let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

const STALE = 'This item changed since you loaded it';

/** The value shown for a field of the item page's Fields list. */
function field(page: Page, name: string) {
  return page.locator(`dl.fields dt:text-is("${name}") + dd`);
}

/** Every request that changes an item (PATCH or DELETE of /work/{id}), as the page sent it. */
function recordChanges(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (r) => {
    if (
      (r.method() === 'PATCH' || r.method() === 'DELETE') &&
      /\/work\/[0-9a-f-]{36}$/.test(new URL(r.url()).pathname)
    ) {
      seen.push(r);
    }
  });
  return seen;
}

/** Opens an item with the live stream cut, so the page keeps what it loaded while others change it. */
async function openStale(id: string) {
  const desk_ = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
  await desk_.page.route('**/events', (route) => route.abort());
  await desk_.page.reload();
  await field(desk_.page, 'Version').waitFor();
  return desk_;
}

describe('the item page guards every change with the version it shows', () => {
  it('a stale action is refused with 412: the page says so, shows the fresh item and keeps what was typed', async () => {
    const created = await desk.api('POST', '/work', { type: 'bug_fix', description: 'Raced by another agent' });
    const id = created.body.id as string;
    const { page, context, errors } = await openStale(id);
    const changes = recordChanges(page);
    const actions = page.getByRole('region', { name: 'Actions' });
    const status = page.locator('dl.fields .badge');
    expect(await field(page, 'Version').innerText()).toBe('1');

    // Someone else changes the item after the page loaded it.
    expect((await desk.api('PATCH', `/work/${id}`, { priority: 1, notes: 'Checked by ops' }, 'bob')).status).toBe(200);

    await actions.getByLabel('Dispatch to agent').fill('codex-1');
    await actions.getByRole('button', { name: 'Dispatch' }).click();
    const alert = actions.getByRole('alert');
    await eventually(() => alert.innerText()).toContain(STALE);
    expect(await alert.innerText()).toMatch(/Priority: 3 → 1/);
    expect(await alert.innerText()).toMatch(/Notes: .*Checked by ops/);
    // The fresh item is on the page, the move was not made, and the agent typed is still there.
    await eventually(() => field(page, 'Priority').innerText()).toBe('1');
    expect(await field(page, 'Version').innerText()).toBe('2');
    expect(await page.getByRole('region', { name: 'Notes' }).locator('p.notes').innerText()).toBe('Checked by ops');
    expect(await status.innerText()).toBe('queued');
    expect((await desk.api('GET', `/work/${id}`)).body.status).toBe('queued');
    expect(await actions.getByLabel('Dispatch to agent').inputValue()).toBe('codex-1');
    await screenshot(page, 'item-stale-laptop');

    // Now that it shows the current version, the same action goes through.
    await actions.getByRole('button', { name: 'Dispatch' }).click();
    await eventually(() => status.innerText()).toBe('dispatched');
    expect(await actions.getByRole('alert').count()).toBe(0);

    // Notes: the draft survives the refusal, and saving again after reading the notice works.
    const notes = page.getByRole('region', { name: 'Notes' });
    await notes.getByRole('button', { name: 'Edit notes' }).click();
    await notes.getByLabel('Notes').fill('My own notes');
    expect((await desk.api('PATCH', `/work/${id}`, { notes: 'Changed meanwhile' }, 'bob')).status).toBe(200);
    await notes.getByRole('button', { name: 'Save notes' }).click();
    await eventually(() => notes.getByRole('alert').innerText()).toContain(STALE);
    expect(await notes.getByRole('alert').innerText()).toMatch(/Notes: .*Changed meanwhile/);
    expect(await notes.getByLabel('Notes').inputValue()).toBe('My own notes');
    expect((await desk.api('GET', `/work/${id}`)).body.notes).toBe('Changed meanwhile');
    await notes.getByRole('button', { name: 'Save notes' }).click();
    await eventually(() => notes.locator('p.notes').innerText()).toBe('My own notes');
    expect((await desk.api('GET', `/work/${id}`)).body.notes).toBe('My own notes');

    // Delete on a stale view: refused, the item stays, the fresh one is shown.
    expect((await desk.api('PATCH', `/work/${id}`, { agent: 'claude-2' }, 'bob')).status).toBe(200);
    await actions.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this work item?' });
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await eventually(() => actions.getByRole('alert').innerText()).toContain(STALE);
    expect(await actions.getByRole('alert').innerText()).toMatch(/Assigned agent: codex-1 → claude-2/);
    await eventually(() => field(page, 'Assigned agent').innerText()).toBe('claude-2');
    expect((await desk.api('GET', `/work/${id}`)).status).toBe(200);
    await actions.getByRole('button', { name: 'Delete…' }).click();
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL(/#\/$/);
    expect((await desk.api('GET', `/work/${id}`)).status).toBe(404);

    const answers = await Promise.all(
      changes.map(async (r) => [r.method(), r.headers()['if-match'], (await r.response())?.status()]),
    );
    expect(answers).toEqual([
      ['PATCH', '"1"', 412],
      ['PATCH', '"2"', 200],
      ['PATCH', '"3"', 412],
      ['PATCH', '"4"', 200],
      ['DELETE', '"5"', 412],
      ['DELETE', '"6"', 204],
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('every action sends If-Match with the version the page shows', async () => {
    const created = await desk.api('POST', '/work', { type: 'bug_fix', description: 'Every move guarded' });
    const id = created.body.id as string;
    const { page, context, errors } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    const changes = recordChanges(page);
    const actions = page.getByRole('region', { name: 'Actions' });
    const version = field(page, 'Version');
    await version.waitFor();

    const shown: string[] = [];
    /** Reads the version on the page, runs the action, waits for the page to show the next one. */
    async function act(run: () => Promise<void>) {
      const before = await version.innerText();
      shown.push(`"${before}"`);
      await run();
      await eventually(() => version.innerText()).not.toBe(before);
    }

    await act(async () => {
      await actions.getByLabel('Dispatch to agent').fill('codex-1');
      await actions.getByRole('button', { name: 'Dispatch' }).click();
    });
    await act(async () => {
      await actions.getByLabel('Reassign to agent').fill('claude-2');
      await actions.getByRole('button', { name: 'Reassign' }).click();
    });
    await act(() => actions.getByRole('button', { name: 'Pick up' }).click());
    await act(() => actions.getByRole('button', { name: 'Block' }).click());
    await act(() => actions.getByRole('button', { name: 'Unblock' }).click());
    await act(async () => {
      const notes = page.getByRole('region', { name: 'Notes' });
      await notes.getByRole('button', { name: 'Edit notes' }).click();
      await notes.getByLabel('Notes').fill('Halfway there');
      await notes.getByRole('button', { name: 'Save notes' }).click();
    });
    await act(async () => {
      await page.getByRole('button', { name: 'Edit item' }).click();
      await page.getByRole('form', { name: 'Edit item' }).getByLabel('Priority').selectOption('2');
      await page.getByRole('button', { name: 'Save changes' }).click();
    });
    await act(() => actions.getByRole('button', { name: 'Complete' }).click());

    const sent = changes.map((r) => r.headers()['if-match']);
    expect(sent).toEqual(shown);
    expect(await Promise.all(changes.map(async (r) => (await r.response())?.status()))).toEqual(shown.map(() => 200));
    expect((await desk.api('GET', `/work/${id}`)).body).toMatchObject({
      status: 'completed',
      priority: 2,
      notes: 'Halfway there',
    });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('edits priority, description, type, project and payload of an open item, never of a final one', async () => {
    const project = await desk.api('POST', '/projects', { name: 'Billing revamp' });
    const created = await desk.api('POST', '/work', {
      type: 'bug_fix',
      description: 'Mistyped item',
      priority: 4,
      payload: { pr: 1 },
    });
    const id = created.body.id as string;
    const { page, context, errors } = await openStale(id);
    const changes = recordChanges(page);

    await page.getByRole('button', { name: 'Edit item' }).click();
    const form = page.getByRole('form', { name: 'Edit item' });
    expect(await form.getByLabel('Priority').inputValue()).toBe('4');
    expect(await form.getByLabel('Type').inputValue()).toBe('bug_fix');
    await form.getByLabel('Priority').selectOption('1');
    await form.getByLabel('Type').fill('code_review');
    await form.getByLabel('Project').selectOption({ label: 'Billing revamp' });
    await form.getByLabel('Payload (JSON object)').fill('{"pr": 2, "repo": "acme/billing"}');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => field(page, 'Priority').innerText()).toBe('1');
    expect(await field(page, 'Type').innerText()).toBe('code_review');
    expect(await field(page, 'Project').innerText()).toBe('Billing revamp');
    expect(await page.locator('pre.payload').innerText()).toContain('"repo": "acme/billing"');
    // Only what was changed is sent, with the version it was based on.
    expect(changes[0]?.headers()['if-match']).toBe('"1"');
    expect(changes[0]?.postDataJSON()).toEqual({
      priority: 1,
      type: 'code_review',
      project_id: project.body.id,
      payload: { pr: 2, repo: 'acme/billing' },
    });
    expect((await desk.api('GET', `/work/${id}`)).body).toMatchObject({
      priority: 1,
      type: 'code_review',
      description: 'Mistyped item',
      project_id: project.body.id,
      payload: { pr: 2, repo: 'acme/billing' },
    });

    // Stale edit: the description changed elsewhere; my priority is kept, theirs is not overwritten.
    expect((await desk.api('PATCH', `/work/${id}`, { description: 'Renamed by bob' }, 'bob')).status).toBe(200);
    await page.getByRole('button', { name: 'Edit item' }).click();
    await form.getByLabel('Priority').selectOption('5');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => form.getByRole('alert').innerText()).toContain(STALE);
    expect(await form.getByRole('alert').innerText()).toContain('Description');
    expect(await form.getByLabel('Priority').inputValue()).toBe('5');
    expect(await form.getByLabel('Description').inputValue()).toBe('Renamed by bob');
    await screenshot(page, 'item-edit-stale-laptop');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => field(page, 'Priority').innerText()).toBe('5');
    expect((await desk.api('GET', `/work/${id}`)).body).toMatchObject({ priority: 5, description: 'Renamed by bob' });

    // A bad payload is stopped in the page.
    await page.getByRole('button', { name: 'Edit item' }).click();
    await form.getByLabel('Payload (JSON object)').fill('[1, 2]');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => form.locator('.field-error').innerText()).toContain('must be a JSON object');
    await form.getByRole('button', { name: 'Discard' }).click();
    expect(changes.map((r) => r.headers()['if-match'])).toEqual(['"1"', '"2"', '"3"']);

    expect((await desk.api('PATCH', `/work/${id}`, { status: 'cancelled', outcome: 'cancelled' })).status).toBe(200);
    await page.reload();
    await eventually(() => page.locator('dl.fields .badge').innerText()).toBe('cancelled');
    expect(await page.getByRole('button', { name: 'Edit item' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
  it('an edit in progress outlives live changes to other fields, and is refused when its own field changed', async () => {
    const created = await desk.api('POST', '/work', { type: 'live_edit', description: 'Edited while an agent works' });
    const id = created.body.id as string;
    const claim = { agent: 'codex-1', types: ['live_edit'], lease_s: 600 };
    expect((await desk.api('POST', '/work/claim', claim, 'codex-1')).status).toBe(200);
    const { page, context, errors } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    await eventually(() => page.getByRole('status').filter({ hasText: 'Live' }).count()).toBe(1);
    const changes = recordChanges(page);
    const version = field(page, 'Version');
    const notes = page.getByRole('region', { name: 'Notes' });
    await eventually(() => version.innerText()).toBe(String(created.body.version + 1));

    // A heartbeat while the notes are being edited: the save goes through over it.
    await notes.getByRole('button', { name: 'Edit notes' }).click();
    await notes.getByLabel('Notes').fill('Reviewed the diff');
    const beat = await desk.api('POST', `/work/${id}/heartbeat`, { agent: 'codex-1' }, 'codex-1');
    await eventually(() => version.innerText()).toBe(String(beat.body.version));
    await notes.getByRole('button', { name: 'Save notes' }).click();
    await eventually(() => notes.locator('p.notes').innerText()).toBe('Reviewed the diff');

    // The agent blocks the item while the priority is being edited: the edit goes through too.
    await page.getByRole('button', { name: 'Edit item' }).click();
    await page.getByRole('form', { name: 'Edit item' }).getByLabel('Priority').selectOption('1');
    const blocked = await desk.api('PATCH', `/work/${id}`, { status: 'blocked' }, 'codex-1');
    expect(blocked.status).toBe(200);
    await eventually(() => version.innerText()).toBe(String(blocked.body.version));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => field(page, 'Priority').innerText()).toBe('1');

    // Someone rewrites the notes while mine are open: the page shows theirs, mine are refused, kept,
    // and saved on the second try.
    await notes.getByRole('button', { name: 'Edit notes' }).click();
    await notes.getByLabel('Notes').fill('Mine');
    const theirs = await desk.api('PATCH', `/work/${id}`, { notes: 'Theirs' }, 'bob');
    await eventually(() => version.innerText()).toBe(String(theirs.body.version));
    await notes.getByRole('button', { name: 'Save notes' }).click();
    await eventually(() => notes.getByRole('alert').innerText()).toContain(STALE);
    expect(await notes.innerText()).toContain('Saved now: Theirs');
    expect(await notes.getByLabel('Notes').inputValue()).toBe('Mine');
    await notes.getByRole('button', { name: 'Save notes' }).click();
    await eventually(() => notes.locator('p.notes').innerText()).toBe('Mine');

    const sent = await Promise.all(changes.map(async (r) => [r.headers()['if-match'], (await r.response())?.status()]));
    expect(sent).toEqual([
      [`"${beat.body.version}"`, 200],
      [`"${blocked.body.version}"`, 200],
      [`"${blocked.body.version + 1}"`, 412],
      [`"${theirs.body.version}"`, 200],
    ]);
    expect((await desk.api('GET', `/work/${id}`)).body).toMatchObject({
      priority: 1,
      notes: 'Mine',
      status: 'blocked',
    });
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the item page shows the agent loop', () => {
  it('shows the lease, the attempts, and a lost lease on the timeline and the board', async () => {
    const created = await desk.api('POST', '/work', {
      type: 'loop_test',
      description: 'Claimed by a crashing agent',
      max_attempts: 2,
      retry_delay_s: 0,
    });
    const id = created.body.id as string;
    const { page, context, errors } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    const status = page.locator('dl.fields .badge');
    await eventually(() => field(page, 'Attempts').innerText()).toBe('0 of 2');
    expect(await field(page, 'Retry delay').innerText()).toMatch(/^0 s/);
    expect(await field(page, 'Lease').innerText()).toBe('—');

    const claim = { agent: 'codex-1', types: ['loop_test'], lease_s: 600 };
    const claimed = await desk.api('POST', '/work/claim', claim, 'codex-1');
    expect(claimed.status).toBe(200);
    await eventually(() => status.innerText()).toBe('in progress');
    await eventually(() => field(page, 'Attempts').innerText()).toBe('1 of 2');
    const lease = field(page, 'Lease');
    expect(await lease.innerText()).toMatch(/in (10 minutes|9 minutes|[0-9]+ seconds)/);
    expect(await lease.locator('time').getAttribute('datetime')).toBe(claimed.body.lease_expires_at);
    await screenshot(page, 'item-leased-laptop');

    // The board marks the lease and the attempt on the row.
    const board = await context.newPage();
    await board.goto('/#/');
    const row = board.locator(`tr[data-id="${id}"]`);
    await eventually(() => row.locator('.loop-mark').count()).toBeGreaterThan(0);
    expect(await row.locator('[title^="Lease expires"]').count()).toBe(1);
    expect(await row.locator('[title="Attempt 1 of 2"]').count()).toBe(1);
    await screenshot(board, 'board-leased-laptop');
    await board.close();

    // The agent goes quiet: a last heartbeat with a 1 s lease, then nothing; the sweep takes it back.
    expect((await desk.api('POST', `/work/${id}/heartbeat`, { agent: 'codex-1', lease_s: 1 }, 'codex-1')).status).toBe(
      200,
    );
    await eventually(() => status.innerText()).toBe('queued');
    await eventually(() => field(page, 'Lease').innerText()).toBe('—');
    const log = page.getByRole('list', { name: 'Dispatch log, oldest first' });
    const expired = log.locator('li.lease-expired');
    await eventually(() => expired.count()).toBe(1);
    expect(await expired.innerText()).toMatch(/^codex-1\s+failed\s+lease expired/);
    expect(await field(page, 'Attempts').innerText()).toBe('1 of 2');
    // retry_delay_s 0: claimable again at once, so run_after is in the past.
    expect(await field(page, 'Run after').innerText()).toMatch(/claimable now/);

    // The last attempt runs out too: the item fails, and says why.
    expect((await desk.api('POST', '/work/claim', { ...claim, lease_s: 1 }, 'codex-1')).status).toBe(200);
    await eventually(() => status.innerText()).toBe('failed');
    await eventually(() => expired.count()).toBe(2);
    expect(await field(page, 'Attempts').innerText()).toBe('2 of 2');
    expect(await page.getByRole('region', { name: 'Notes' }).innerText()).toContain('attempt 2 of 2 ran out');
    await screenshot(page, 'item-lease-expired-laptop');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows run_after and the retry delay of an item submitted for later, from the Submit page', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/new' });
    await page.getByLabel('Type').fill('nightly_job');
    await page.getByLabel('Description').fill('Rebuild the search index tonight');
    await page.getByText('Scheduling and retries').click();
    const later = new Date(Date.now() + 3 * 3600_000);
    later.setUTCSeconds(0, 0);
    // The browser runs in UTC (see openDesk), so the local wall time is the UTC one.
    await page.getByLabel('Not claimable before').fill(later.toISOString().slice(0, 16));
    await page.getByLabel('Attempts at most').fill('5');
    await page.getByLabel('Retry delay (seconds)').fill('45');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL(/#\/items\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    expect((await desk.api('GET', `/work/${id}`)).body).toMatchObject({
      run_after: later.toISOString(),
      max_attempts: 5,
      retry_delay_s: 45,
      attempts: 0,
    });
    await eventually(() => field(page, 'Run after').innerText()).toMatch(
      /^not claimable before .* \(in (3|2|180|179) (hours|minutes)\)$/,
    );
    expect(await field(page, 'Run after').locator('time').getAttribute('datetime')).toBe(later.toISOString());
    expect(await field(page, 'Attempts').innerText()).toBe('0 of 5');
    expect(await field(page, 'Retry delay').innerText()).toMatch(/^45 s/);

    // Nothing claims it before then.
    expect(
      (await desk.api('POST', '/work/claim', { agent: 'codex-1', types: ['nightly_job'] }, 'codex-1')).status,
    ).toBe(204);

    // Out-of-range values get the service's own words, next to the field.
    await page.goto('/#/new');
    await page.getByLabel('Type').fill('nightly_job');
    await page.getByLabel('Description').fill('Too many attempts');
    await page.getByText('Scheduling and retries').click();
    await page.getByLabel('Attempts at most').evaluate((input) => input.removeAttribute('max'));
    await page.getByLabel('Attempts at most').fill('1000');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await eventually(() => page.getByRole('alert').innerText()).toContain('max_attempts');
    expect(errors).toEqual([]);
    await context.close();
  });
});
