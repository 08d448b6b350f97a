import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '../../src/shared/db/schema.js';
import { launchBrowser, openDesk } from '../web/browser.js';
import { type Desk, startDesk } from '../web/desk-server.js';

// The first screen of a 100,000-item database renders in well under a second. The
// rows go straight into the table (an API burst would measure the POST path, not the page).
// A budget and nothing else, so it runs in `npm run test:perf` only (build the UI first).

const ITEMS = 100_000;
const BUDGET_MS = 1_000;
const STATUSES = ['queued', 'dispatched', 'in_progress', 'blocked', 'completed', 'failed', 'cancelled'] as const;

let desk: Desk;
let browser: Browser;

async function seed(db: Kysely<DatabaseSchema>, count: number): Promise<void> {
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const batch = 1_000;
  await db.transaction().execute(async (trx) => {
    for (let offset = 0; offset < count; offset += batch) {
      const rows = Array.from({ length: Math.min(batch, count - offset) }, (_, j) => {
        const n = offset + j;
        const status = STATUSES[n % STATUSES.length]!;
        const at = new Date(start + n * 1_000).toISOString();
        const final = status === 'completed' || status === 'failed' || status === 'cancelled';
        return {
          id: randomUUID(),
          type: n % 3 === 0 ? 'code_review' : 'bug_fix',
          description: `Seeded task ${n}`,
          priority: (n % 5) + 1,
          status,
          assigned_agent: status === 'queued' ? null : `agent-${n % 50}`,
          created_by: 'seed',
          created_at: at,
          updated_at: at,
          completed_at: final ? at : null,
          outcome:
            status === 'completed'
              ? ('success' as const)
              : status === 'failed'
                ? ('failed' as const)
                : status === 'cancelled'
                  ? ('cancelled' as const)
                  : null,
          notes: null,
          payload: null,
          project_id: null,
          version: 1,
          attempts: 0,
          max_attempts: 3,
          retry_delay_s: 30,
          run_after: null,
          lease_expires_at: null,
          lease_s: null,
          comment_count: 0,
          review_required: null,
          parent_id: null,
          waiting_on: 0,
          link_version: 0,
          container: 0,
        };
      });
      await trx.insertInto('work_items').values(rows).execute();
    }
  });
}

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk(), launchBrowser()]);
  await seed(desk.work.database.kysely, ITEMS);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

/** Milliseconds from navigation start until the rows and the counts are on screen. */
async function firstScreen(path: string): Promise<number> {
  const { page, context } = await openDesk(browser, desk.url, { path: '/#/agents' });
  await page.goto('about:blank');
  await page.goto(desk.url + path);
  await page.locator('table.items tbody tr').first().waitFor();
  // A locator, not waitForFunction: a string predicate is evaluated in the page, where the UI's
  // Content-Security-Policy (no 'unsafe-eval') refuses it once the wait has to poll.
  await page.locator('.count-n[data-status="all"]').filter({ hasNotText: /^…$/ }).waitFor();
  const ms = (await page.evaluate('performance.now()')) as number;
  const rows = await page.locator('table.items tbody tr').count();
  expect(rows).toBe(50);
  await context.close();
  return ms;
}

describe(`the first screen of ${ITEMS.toLocaleString('en')} items`, () => {
  it('renders the board, a filtered board and the queue order within the budget', async () => {
    const views = {
      board: '/#/',
      'status=blocked': '/#/?status=blocked',
      'agent+queue': '/#/?agent=agent-7&sort=priority',
    };
    const timings: Record<string, number> = {};
    for (const [name, path] of Object.entries(views)) {
      await firstScreen(path); // warm the browser's cache of the assets, as a returning user has it
      // Best of three: the other test worker shares the CPU, and the budget is for the page.
      const runs = [await firstScreen(path), await firstScreen(path), await firstScreen(path)];
      timings[name] = Math.round(Math.min(...runs));
    }
    console.log(JSON.stringify({ bench: 'web first screen', items: ITEMS, ms: timings }));
    for (const ms of Object.values(timings)) expect(ms).toBeLessThan(BUDGET_MS);
  });
});
