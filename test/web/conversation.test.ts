import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot, VIEWPORTS } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// In the browser, on an open desk (AUTH=off: the caller is a person, X-User): an agent
// asks through the API, a person sees the question at once (the menu's badge, Needs you, the
// item page) and answers it in place; a review is returned with a reason and then approved; the
// item's timeline interleaves what was said with what happened; comment text stays text. On an
// open desk the holder names itself in its PATCH (`agent`), as MCP and the CLI do: that is what
// makes a completion the holder's, which review holds.

let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

/** Submits an item of its own type and has `agent` claim it: in progress, held by the agent. */
async function claimed(agent: string, description: string, extra: Record<string, unknown> = {}): Promise<string> {
  const type = `conv_${Math.random().toString(36).slice(2, 8)}`;
  const created = await desk.api('POST', '/work', { type, description, ...extra });
  expect(created.status).toBe(201);
  const claim = await desk.api('POST', '/work/claim', { agent, types: [type], lease_s: 300 }, agent);
  expect(claim.status).toBe(200);
  return claim.body.id as string;
}

async function ask(agent: string, id: string, question: string, options?: string[]) {
  const r = await desk.api('POST', `/work/${id}/questions`, { question, ...(options && { options }) }, agent);
  expect(r.status).toBe(201);
  return r.body as { id: string; status: string };
}

const badge = (page: Page) => page.getByTestId('needs-you-count');
const overflow = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
const timeline = (page: Page) => page.getByRole('list', { name: 'Timeline, oldest first' });

async function waitLive(page: Page) {
  await eventually(() => page.locator('.live').innerText()).toBe('Live');
}

describe('questions to a person', () => {
  it('the badge counts a question the moment an agent asks it; Needs you answers it in place', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/needs-you' });
    await page.getByRole('heading', { name: 'Needs you', level: 1 }).waitFor();
    await waitLive(page);
    await eventually(() => page.getByText('Nothing waits for a person.').count()).toBe(1);
    expect(await badge(page).count()).toBe(0);

    const id = await claimed('bot-1', 'Deploy the billing fix');
    const q = await ask('bot-1', id, 'Which environment first?', ['staging', 'production']);
    // Live: no reload, the badge and the list follow the stream.
    await eventually(() => badge(page).innerText()).toMatch(/1$/);
    const entry = page.locator(`li.needs-entry[data-question-id="${q.id}"]`);
    await entry.waitFor();
    expect(await entry.innerText()).toContain('Deploy the billing fix');
    expect(await entry.innerText()).toContain('Which environment first?');
    expect(await entry.innerText()).toMatch(/Question from bot-1/);
    expect(await entry.innerText()).toMatch(/waiting \d+ s/);
    await screenshot(page, 'needs-you-laptop');

    await entry.getByRole('button', { name: 'staging' }).click();
    await eventually(() => entry.count()).toBe(0);
    await eventually(() => badge(page).count()).toBe(0);
    const answered = await desk.api('GET', `/work/${id}/questions/${q.id}?wait_s=0`, undefined, 'bot-1');
    expect(answered.body).toMatchObject({ status: 'answered', option: 'staging', answered_by: 'alice' });
    expect((await desk.api('GET', `/work/${id}`)).body).toMatchObject({
      status: 'in_progress',
      assigned_agent: 'bot-1',
    });

    // Answered: the newest answers, with who answered.
    await page.getByRole('link', { name: 'Answered' }).click();
    await eventually(() => page.locator(`li.needs-entry[data-question-id="${q.id}"]`).innerText()).toMatch(
      /answered by alice/,
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the item page shows the open question first, answers it with text, and lists it all on one timeline', async () => {
    const id = await claimed('bot-2', 'Migrate the invoices table');
    const { page, context, errors, dialogs } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    await timeline(page).waitFor();
    await waitLive(page);

    // A comment: markdown and markup stay characters; only the http(s) address is a link.
    const box = page.getByRole('form', { name: 'Add a comment' });
    const hostile =
      '**Plan** <img src=x onerror=alert(1)> [click](javascript:alert(2)) see https://example.com/runbook.';
    await box.getByLabel(/Comment/).fill(hostile);
    await box.getByRole('button', { name: 'Add link' }).click();
    await box.getByLabel('Link 1 address').fill('javascript:alert(3)');
    await box.getByRole('button', { name: 'Comment' }).click();
    await eventually(() => box.getByRole('alert').innerText()).toContain('Only http and https links');
    await box.getByLabel('Link 1 address').fill('https://example.com/pr/7');
    await box.getByLabel('Title (optional)').fill('The pull request');
    await box.getByRole('button', { name: 'Comment' }).click();
    const note = timeline(page).locator('li[data-comment-kind="note"]');
    await eventually(() => note.count()).toBe(1);
    expect(await note.locator('.comment-body').innerText()).toBe(hostile);
    expect(await note.innerText()).toMatch(/alice \(\w+\) commented/);
    expect(await note.locator('a').evaluateAll((as) => as.map((a: any) => a.href as string))).toEqual([
      'https://example.com/runbook',
      'https://example.com/pr/7',
    ]);
    expect(await note.getByRole('link', { name: 'The pull request' }).getAttribute('rel')).toContain('noopener');
    // A title is the author's words: the host it opens is shown beside it.
    expect(await note.locator('.comment-links li').innerText()).toBe('The pull request (example.com)');
    expect(await page.locator('main img, a[href^="javascript:"]').count()).toBe(0);
    expect(await box.getByLabel(/Comment/).inputValue()).toBe('');

    // The agent asks without options: a text answer.
    await ask('bot-2', id, 'May I lock the table for ten minutes tonight?');
    const question = page.locator('.question-card');
    await eventually(() => question.innerText()).toContain('May I lock the table for ten minutes tonight?');
    await eventually(() => page.locator('dl.fields .badge').innerText()).toBe('blocked');
    // The question is above the fields and the timeline.
    const top = async (sel: string) => (await page.locator(sel).first().boundingBox())!.y;
    expect(await top('.question-card')).toBeLessThan(await top('section[aria-labelledby="fields-title"]'));
    await screenshot(page, 'item-question-laptop');
    await question.getByLabel('Your answer').fill('Yes, after 22:00 UTC.');
    await question.getByRole('button', { name: 'Send answer' }).click();
    await eventually(() => question.count()).toBe(0);
    await eventually(() => page.locator('dl.fields .badge').innerText()).toBe('in progress');

    // One timeline, by time: created, claimed, the note, the question and the block, the answer and the return to work.
    await eventually(() => timeline(page).locator('li[data-comment-kind="answer"]').count()).toBe(1);
    const kinds = await timeline(page)
      .locator('> li')
      .evaluateAll((lis) => lis.map((li: any) => (li.dataset.commentKind ?? li.dataset.action) as string));
    expect(kinds.slice(0, 3)).toEqual(['created', 'claimed', 'note']);
    expect(kinds.indexOf('question')).toBeGreaterThan(kinds.indexOf('note'));
    expect(kinds.indexOf('answer')).toBeGreaterThan(kinds.indexOf('question'));
    expect(await timeline(page).locator('li[data-comment-kind="question"]').innerText()).toMatch(/bot-2 \(\w+\) asked/);
    expect(await timeline(page).locator('li[data-comment-kind="answer"]').innerText()).toContain(
      'Yes, after 22:00 UTC.',
    );
    await screenshot(page, 'item-timeline-laptop');
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('a long conversation', () => {
  it("shows a link's host beside its title, as punycode for a look-alike in another script", async () => {
    const id = await claimed('bot-7', 'Check the payment page');
    // "pаypal" with a Cyrillic а: a title in words is allowed, so the host must say where it goes.
    const links = [
      { url: 'https://p\u0430ypal.com/login', title: 'Sign in here' },
      { url: 'https://p\u0430ypal.com/help' },
      { url: 'https://example.com/plain' },
    ];
    expect((await desk.api('POST', `/work/${id}/comments`, { body: 'Links', links }, 'bot-7')).status).toBe(201);
    const { page, context, errors } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    const items = timeline(page).locator('li[data-comment-kind="note"] .comment-links li');
    await eventually(() => items.count()).toBe(3);
    expect(await items.nth(0).innerText()).toBe('Sign in here (xn--pypal-4ve.com)');
    expect(await items.nth(1).innerText()).toMatch(/\(xn--pypal-4ve\.com\)$/);
    // An address written in ASCII already says where it goes.
    expect(await items.nth(2).innerText()).toBe('https://example.com/plain');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('reads comments 200 at a time and holds back the moves after the last comment read', async () => {
    const id = await claimed('bot-6', 'Chatty item');
    for (let i = 1; i <= 201; i += 1) {
      expect(
        (await desk.api('POST', `/work/${id}/comments`, { body: `Progress ${i}`, kind: 'progress' }, 'bot-6')).status,
      ).toBe(201);
    }
    expect((await desk.api('PATCH', `/work/${id}`, { status: 'blocked' }, 'bot-6')).status).toBe(200);
    const { page, context, errors } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    const progress = timeline(page).locator('li[data-comment-kind="progress"]');
    await eventually(() => progress.count()).toBe(200);
    // The block came after comment 201, which is not read yet: it is not shown out of order.
    expect(await timeline(page).locator('li[data-action="block"]').count()).toBe(0);
    expect(await progress.last().innerText()).toContain('Progress 200');
    await page.getByRole('button', { name: 'Show later entries' }).click();
    await eventually(() => progress.count()).toBe(201);
    await eventually(() => timeline(page).locator('li[data-action="block"]').count()).toBe(1);
    const last = await timeline(page).locator('> li').last().getAttribute('data-action');
    expect(last).toBe('block');
    expect(await page.getByRole('button', { name: 'Show later entries' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('review before done', () => {
  it('a project that wants review holds the agent’s done; a person returns it with a reason, then approves it', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/projects' });
    await page.getByRole('form', { name: 'New project' }).getByLabel('New project name').fill('Payments');
    await page.getByRole('button', { name: 'Create project' }).click();
    const row = page.getByRole('article', { name: 'Project Payments' });
    const toggle = row.getByLabel('Review before done');
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    await toggle.check();
    const projects = async () =>
      (await desk.api('GET', '/projects')).body as { name: string; id: string; review_required: boolean }[];
    await eventually(async () => (await projects()).find((p) => p.name === 'Payments')?.review_required).toBe(true);
    const project = (await projects()).find((p) => p.name === 'Payments')!;

    const id = await claimed('bot-3', 'Refund the duplicate charge', { project_id: project.id });
    const done = await desk.api(
      'PATCH',
      `/work/${id}`,
      { status: 'completed', outcome: 'success', notes: 'Refunded 12.40', agent: 'bot-3' },
      'bot-3',
    );
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('blocked');

    await page.goto(`/#/items/${id}`);
    const review = page.locator('.question-card');
    await eventually(() => review.getByRole('heading').innerText()).toBe('Waiting for review');
    expect(await page.locator('dl.fields').innerText()).toMatch(/Review before done\s+yes \(project default\)/);
    await eventually(() => page.getByTestId('waiting-hint').innerText()).toContain('waits for the review above');
    await review.getByRole('button', { name: 'Return…' }).click();
    await review.getByLabel(/What should change/).fill('Refund the fee as well.');
    await review.getByRole('button', { name: 'Return to bot-3' }).click();
    await eventually(() => page.locator('dl.fields .badge').innerText()).toBe('in progress');
    await eventually(() => timeline(page).locator('li[data-comment-kind="answer"]').innerText()).toContain(
      'Refund the fee as well.',
    );

    const again = await desk.api(
      'PATCH',
      `/work/${id}`,
      { status: 'completed', outcome: 'success', agent: 'bot-3' },
      'bot-3',
    );
    expect(again.body.status).toBe('blocked');
    await eventually(() => review.getByRole('button', { name: 'Approve' }).count()).toBe(1);
    await screenshot(page, 'item-review-laptop');
    await review.getByRole('button', { name: 'Approve' }).click();
    await review.getByRole('button', { name: 'Approve and complete' }).click();
    await eventually(() => page.locator('dl.fields .badge').innerText()).toBe('completed');
    expect((await desk.api('GET', `/work/${id}`)).body).toMatchObject({ status: 'completed', outcome: 'success' });
    // The card goes with the page's next read of the item's questions, a moment after the badge.
    await eventually(() => review.count()).toBe(0);
    // The timeline tells the review's comments from a question's.
    const said = timeline(page).locator('li[data-kind="comment"] .comment-head');
    await eventually(() => said.allInnerTexts()).toHaveLength(4);
    const heads = await said.allInnerTexts();
    expect(heads.map((h) => h.replace(/\s*\d{1,2} \w{3} \d{4}, [\d:]+.*$/s, ''))).toEqual([
      'bot-3 (agent) sent the work for review',
      'alice (admin) returned the work',
      'bot-3 (agent) sent the work for review',
      'alice (admin) approved the work',
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('submit and edit set an item’s own review_required: project default, yes or no', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/new' });
    await page.getByLabel('Type').fill('conv_submit');
    await page.getByLabel('Description').fill('Needs a second pair of eyes');
    await page.getByLabel('Review before done').selectOption('yes');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.waitForURL(/#\/items\//);
    const id = decodeURIComponent(page.url().split('/items/')[1] ?? '');
    expect((await desk.api('GET', `/work/${id}`)).body.review_required).toBe(true);
    await eventually(() => page.locator('dl.fields').innerText()).toMatch(/Review before done\s+yes \(this item\)/);

    await page.getByRole('button', { name: 'Edit item' }).click();
    const form = page.getByRole('form', { name: 'Edit item' });
    expect(await form.getByLabel('Review before done').inputValue()).toBe('yes');
    await form.getByLabel('Review before done').selectOption('');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await eventually(async () => (await desk.api('GET', `/work/${id}`)).body.review_required).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('on a 390 px phone', () => {
  it('Needs you and the item page fit the screen, and a review is approved there', async () => {
    const projectId = (await desk.api('POST', '/projects', { name: 'Phone reviews', review_required: true })).body
      .id as string;
    const id = await claimed('bot-4', 'Rotate the signing key of the mobile API gateway', { project_id: projectId });
    expect(
      (await desk.api('PATCH', `/work/${id}`, { status: 'completed', outcome: 'success', agent: 'bot-4' }, 'bot-4'))
        .body.status,
    ).toBe('blocked');
    const other = await claimed('bot-5', 'Pick a name for the new queue');
    await ask('bot-5', other, 'Which name do you prefer?', [
      'orders-v2',
      'orders-next',
      'a rather long option that has to wrap on a phone',
    ]);

    const { page, context, errors } = await openDesk(browser, desk.url, { viewport: 'phone', path: '/#/needs-you' });
    const list = page.getByRole('list', { name: 'Waiting for a person, oldest first' });
    await eventually(() => list.locator('> li').count()).toBeGreaterThanOrEqual(2);
    expect(await overflow(page)).toBe(0);
    for (const b of await list.getByRole('button').all()) {
      const box = (await b.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    }
    await screenshot(page, 'needs-you-phone');

    // One agent's questions only, the filter kept in the address.
    await page.getByRole('form', { name: 'Agent filter' }).getByLabel('Agent').fill('bot-5');
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(() => list.locator('> li').allInnerTexts()).toHaveLength(1);
    expect(await list.innerText()).toContain('Pick a name for the new queue');
    expect(page.url()).toContain('agent=bot-5');
    await page.getByRole('form', { name: 'Agent filter' }).getByLabel('Agent').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(() => list.locator('> li').count()).toBeGreaterThanOrEqual(2);

    const entry = page.locator('li.needs-entry[data-kind="review"]').filter({ hasText: 'Rotate the signing key' });
    await entry.getByRole('button', { name: 'Approve' }).click();
    await entry.getByRole('button', { name: 'Approve and complete' }).click();
    await eventually(() => entry.count()).toBe(0);
    expect((await desk.api('GET', `/work/${id}`)).body).toMatchObject({ status: 'completed', outcome: 'success' });

    await page.goto(`/#/items/${other}`);
    await page.locator('.question-card').waitFor();
    await timeline(page).waitFor();
    expect(await overflow(page)).toBe(0);
    await screenshot(page, 'item-question-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});
