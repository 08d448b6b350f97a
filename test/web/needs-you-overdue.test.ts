import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJumpingClock } from '../support/clock.js';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// Overdue on Needs you: a question open past its project's answer time carries an overdue mark,
// "Overdue only" keeps just those (the URL keeps the filter), and the item's page says so. The
// desk's clock jumps instead of the test waiting.

const clock = createJumpingClock();
let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk({}, { now: clock.now }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

/** A question asked by `agent` on a fresh item of the project. */
async function asked(projectId: string, agent: string, question: string): Promise<void> {
  const type = `overdue_${Math.random().toString(36).slice(2, 8)}`;
  expect((await desk.api('POST', '/work', { type, description: question, project_id: projectId })).status).toBe(201);
  const claim = await desk.api('POST', '/work/claim', { agent, types: [type], lease_s: 3600 }, agent);
  expect(claim.status).toBe(200);
  expect((await desk.api('POST', `/work/${claim.body.id}/questions`, { question }, agent)).status).toBe(201);
}

describe('overdue on Needs you', () => {
  it.each(['laptop', 'phone'] as const)('marks what is past its answer time and filters it (%s)', async (viewport) => {
    const project = await desk.api('POST', '/projects', { name: `Urgent ${viewport}`, answer_within_s: 600 });
    expect(project.status, JSON.stringify(project.body)).toBe(201);
    await asked(project.body.id, `bot-${viewport}`, `Old question (${viewport})`);
    clock.advance(11 * 60 * 1000);
    await asked(project.body.id, `bot2-${viewport}`, `New question (${viewport})`);

    const { page, context, errors } = await openDesk(browser, desk.url, {
      viewport,
      path: `/#/needs-you?project_id=${project.body.id}`,
    });
    const entries = page.getByRole('list', { name: 'Waiting for a person, oldest first' }).locator('> li');
    await eventually(() => entries.count()).toBe(2);
    const old = entries.filter({ hasText: `Old question (${viewport})` });
    expect(await old.locator('.pill.overdue').innerText()).toBe('overdue');
    expect(
      await entries
        .filter({ hasText: `New question (${viewport})` })
        .locator('.pill.overdue')
        .count(),
    ).toBe(0);

    await page.getByLabel('Overdue only').check();
    await eventually(() => entries.count()).toBe(1);
    expect(await entries.first().innerText()).toContain(`Old question (${viewport})`);
    expect(page.url()).toContain('overdue=true');
    // The filter survives a reload, as the other filters do.
    await page.reload();
    await eventually(() => entries.count()).toBe(1);
    expect(await page.getByLabel('Overdue only').isChecked()).toBe(true);
    await screenshot(page, `needs-you-overdue-${viewport}`);
    // The item's own page says so too, above its question.
    await entries.first().getByRole('link').first().click();
    await eventually(() => page.getByTestId('overdue').innerText()).toContain("past its project's answer time");
    expect(errors).toEqual([]);
    await context.close();
  });
});
