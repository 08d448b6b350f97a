import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, launchBrowser, layoutShift, openDesk, TRACK_LAYOUT_SHIFT } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// The item page with an open question: the question's card is at the top, so when it arrived
// after the rest of the page it pushed everything down. A layout property, not a time budget:
// the page reads the item and its questions together and paints once both are in, whichever
// answers first, so nothing the user already sees moves. The questions are read once for the
// card and the timeline both.

let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

/** An item an agent holds, with progress comments and an open question: blocked, waiting on a person. */
async function waitingItem(agent: string): Promise<string> {
  const type = `shift_${Math.random().toString(36).slice(2, 8)}`;
  expect(
    (await desk.api('POST', '/work', { type, description: 'Migrate the invoices table to the new schema' })).status,
  ).toBe(201);
  const claim = await desk.api('POST', '/work/claim', { agent, types: [type], lease_s: 300 }, agent);
  expect(claim.status).toBe(200);
  const id = claim.body.id as string;
  for (let i = 1; i <= 4; i += 1) {
    expect(
      (await desk.api('POST', `/work/${id}/comments`, { body: `Step ${i} done`, kind: 'progress' }, agent)).status,
    ).toBe(201);
  }
  expect(
    (
      await desk.api(
        'POST',
        `/work/${id}/questions`,
        { question: 'May I lock the table for ten minutes tonight?' },
        agent,
      )
    ).status,
  ).toBe(201);
  return id;
}

/** The page's reads of the item's questions so far (the resource timing entries hold every request). */
const questionReads = (id: string) =>
  `performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname === '/work/${id}/questions').length`;

describe('the item page with an open question', () => {
  it.each(['desktop', 'phone'] as const)(
    'does not move when its question arrives, and reads the questions once (%s)',
    async (viewport) => {
      const id = await waitingItem(`bot-${viewport}`);
      const { page, context, errors } = await openDesk(browser, desk.url, {
        path: `/#/items/${id}`,
        viewport,
        init: TRACK_LAYOUT_SHIFT,
      });
      await page.locator('.question-card').getByText('May I lock the table').waitFor();
      // Everything the page reads is in: the timeline (comments, question), the plan card, the live stream.
      const timeline = page.getByRole('list', { name: 'Timeline, oldest first' });
      await eventually(() => timeline.locator('li[data-comment-kind="progress"]').count()).toBe(4);
      await eventually(() => timeline.locator('li[data-comment-kind="question"]').count()).toBe(1);
      await eventually(() => page.locator('.live').innerText()).toBe('Live');
      expect(await layoutShift(page)).toBeLessThan(0.05);
      expect(await page.evaluate<number>(questionReads(id))).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );
});
