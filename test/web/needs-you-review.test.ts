import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// A review on "Needs you" in the browser (open desk, the caller a person): the card shows the
// work it asks about (the outcome, the agent's notes, its latest progress, its links), Approve
// asks once more in place, by keyboard as by pointer, and each form on the page is named by its
// item so a list of them can be told apart.

let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

async function claimed(agent: string, description: string, extra: Record<string, unknown> = {}): Promise<string> {
  const type = `review_${Math.random().toString(36).slice(2, 8)}`;
  expect((await desk.api('POST', '/work', { type, description, ...extra })).status).toBe(201);
  const claim = await desk.api('POST', '/work/claim', { agent, types: [type], lease_s: 300 }, agent);
  expect(claim.status).toBe(200);
  return claim.body.id as string;
}

/** An item of a review project that `agent` worked on, reported on and completed: it waits for review. */
async function sentForReview(
  agent: string,
  description: string,
  notes: string,
  progress: { body: string; links?: object[] }[],
) {
  const project = await desk.api('POST', '/projects', {
    name: `Reviewed ${Math.random().toString(36).slice(2, 8)}`,
    review_required: true,
  });
  expect(project.status).toBe(201);
  const id = await claimed(agent, description, { project_id: project.body.id });
  for (const p of progress)
    expect((await desk.api('POST', `/work/${id}/comments`, { kind: 'progress', ...p }, agent)).status).toBe(201);
  const done = await desk.api('PATCH', `/work/${id}`, { status: 'completed', outcome: 'success', notes, agent }, agent);
  expect(done.body.status).toBe('blocked');
  return id;
}

const status = async (id: string) => (await desk.api('GET', `/work/${id}`)).body.status as string;
const focused = (page: Page) => page.evaluate<string>('document.activeElement?.textContent?.trim() ?? ""');

describe('a review on Needs you', () => {
  it('shows the work: outcome, notes, the latest progress and its links', async () => {
    const id = await sentForReview(
      'bot-r1',
      'Upgrade the payment SDK',
      'Bumped to 4.2; the webhook signature check changed, see the PR.',
      [
        { body: 'Read the changelog' },
        { body: 'Updated the client', links: [{ url: 'https://git.example/pay/pull/41', title: 'The pull request' }] },
        { body: 'Ran the contract tests: 212 passed' },
        { body: 'Deployed to staging', links: [{ url: 'https://ci.example/runs/9' }] },
      ],
    );
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/needs-you' });
    const entry = page.locator('li.needs-entry[data-kind="review"]').filter({ hasText: 'Upgrade the payment SDK' });
    await entry.waitFor();
    const text = await entry.innerText();
    expect(text).toMatch(/Outcome\s+success/);
    expect(text).toContain('Bumped to 4.2; the webhook signature check changed, see the PR.');
    // The latest three progress reports, oldest of them first; the first one is on the item page.
    const progress = entry.locator('.review-progress > li');
    expect((await progress.allInnerTexts()).map((t) => t.split('\n').at(-1))).toEqual([
      'Updated the client',
      'Ran the contract tests: 212 passed',
      'Deployed to staging',
    ]);
    expect(text).not.toContain('Read the changelog');
    const links = entry.locator('.review-links a');
    expect(await links.evaluateAll((as) => as.map((a: any) => a.href as string))).toEqual([
      'https://ci.example/runs/9',
      'https://git.example/pay/pull/41',
    ]);
    expect(await entry.getByRole('link', { name: 'The pull request' }).getAttribute('rel')).toContain('noopener');
    expect(await status(id)).toBe('blocked');
    await screenshot(page, 'needs-you-review-laptop');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('Approve asks once more, in place: Escape and Cancel keep the review, the second button completes it', async () => {
    const id = await sentForReview('bot-r2', 'Rotate the webhook secret', 'Rotated; old secret valid for 24 h.', []);
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/needs-you' });
    const entry = page.locator('li.needs-entry[data-kind="review"]').filter({ hasText: 'Rotate the webhook secret' });
    const approve = entry.getByRole('button', { name: 'Approve', exact: true });
    await approve.waitFor();

    // One click asks; it does not complete. Focus is on the button that would.
    await approve.click();
    const confirm = entry.getByRole('group', { name: 'Confirm approval: Rotate the webhook secret' });
    await confirm.waitFor();
    expect(await confirm.innerText()).toContain('Approve this work?');
    await eventually(() => focused(page)).toBe('Approve and complete');
    expect(await status(id)).toBe('blocked');

    // Escape goes back, focus on Approve again; so does Cancel.
    await page.keyboard.press('Escape');
    await eventually(() => confirm.count()).toBe(0);
    await eventually(() => focused(page)).toBe('Approve');
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => focused(page)).toBe('Approve');
    expect(await status(id)).toBe('blocked');

    // By keyboard alone: Enter asks, Enter again approves.
    await page.keyboard.press('Enter');
    await eventually(() => focused(page)).toBe('Approve and complete');
    await screenshot(page, 'needs-you-approve-confirm-laptop');
    await page.keyboard.press('Enter');
    await eventually(() => status(id)).toBe('completed');
    await eventually(() => entry.count()).toBe(0);
    // Its card is gone; focus went to the entry in its place, or the heading, not to the page's start.
    await eventually(() =>
      page.evaluate<boolean>("document.activeElement?.matches('.needs-list .needs-item, #needs-you-title') ?? false"),
    ).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('names each form and group by its item', async () => {
    const a = await claimed('bot-r3', 'Pick the backup window');
    const b = await claimed('bot-r4', 'Name the new queue');
    const c = await claimed('bot-r5', 'Choose the log retention');
    expect(
      (await desk.api('POST', `/work/${a}/questions`, { question: 'When may the backup run?' }, 'bot-r3')).status,
    ).toBe(201);
    expect((await desk.api('POST', `/work/${b}/questions`, { question: 'Which name?' }, 'bot-r4')).status).toBe(201);
    expect(
      (
        await desk.api(
          'POST',
          `/work/${c}/questions`,
          { question: 'How long?', options: ['30 days', '90 days'] },
          'bot-r5',
        )
      ).status,
    ).toBe(201);
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/needs-you' });
    await page.getByRole('form', { name: 'Answer: Name the new queue' }).waitFor();
    expect(
      await page.getByRole('form', { name: 'Answer: Pick the backup window' }).getByLabel('Your answer').count(),
    ).toBe(1);
    expect(
      await page
        .getByRole('group', { name: 'Answer with one of: Choose the log retention' })
        .getByRole('button')
        .allInnerTexts(),
    ).toEqual(['30 days', '90 days']);
    // No two forms, groups or regions on the page share a name.
    const names = await page
      .locator('form[aria-label], [role="group"][aria-label], section[aria-label]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(names.length).toBeGreaterThanOrEqual(7);
    expect(new Set(names).size).toBe(names.length);

    // Answered in its own form, by its own name.
    const form = page.getByRole('form', { name: 'Answer: Name the new queue' });
    await form.getByLabel('Your answer').fill('orders-v2');
    await form.getByRole('button', { name: 'Send answer' }).click();
    await eventually(async () => (await desk.api('GET', `/work/${b}`)).body.status).toBe('in_progress');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
