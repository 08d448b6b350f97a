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

const IMG = '<img src=x onerror=alert(1)>';
const MARK = '<img src=x onerror="window.__xss=1">';
const SCRIPT = '<script>alert(2)</script>';

describe('text from the API is only ever text', () => {
  it('shows markup in descriptions, notes, payloads and project fields as characters and runs none of it', async () => {
    const project = await desk.api('POST', '/projects', {
      name: '<b onmouseover=alert(3)>bold</b>',
      external_ref: 'javascript:alert(4)',
    });
    const item = await desk.api('POST', '/work', {
      type: 'bug_fix',
      description: IMG,
      project_id: project.body.id,
      payload: { html: MARK, script: SCRIPT },
    });
    await desk.api('PATCH', `/work/${item.body.id}`, { notes: SCRIPT });
    await desk.api('POST', '/work', { type: 'bug_fix', description: MARK, agent: 'agent-x' });

    const { page, context, dialogs, errors } = await openDesk(browser, desk.url);
    const link = page.getByRole('link', { name: IMG, exact: true });
    await link.waitFor();
    expect(await page.getByRole('link', { name: MARK, exact: true }).count()).toBe(1);
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    await eventually(() => page.getByRole('cell', { name: '<b onmouseover=alert(3)>bold</b>' }).count()).toBe(1);
    await screenshot(page, 'xss-board-laptop');

    await link.click();
    const heading = page.getByRole('heading', { level: 1 });
    await eventually(() => heading.innerText()).toBe(IMG);
    expect(await page.locator('p.notes').innerText()).toBe(SCRIPT);
    expect(await page.locator('pre.payload').innerText()).toContain(
      '"html": "<img src=x onerror=\\"window.__xss=1\\">"',
    );
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    await screenshot(page, 'xss-item-laptop');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: MARK, exact: true }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('heading', { name: '<b onmouseover=alert(3)>bold</b>' }).waitFor();
    // A javascript: reference is shown, never made a link.
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.getByText('javascript:alert(4)').count()).toBe(1);

    await page.waitForTimeout(300); // an onerror would have fired by now
    expect(dialogs).toEqual([]);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows markup and markdown in comments, questions and options as characters; links only for http and https', async () => {
    const type = 'xss_conv';
    expect((await desk.api('POST', '/work', { type, description: 'Talked about' })).status).toBe(201);
    const claimed = await desk.api('POST', '/work/claim', { agent: 'bot-x', types: [type] }, 'bot-x');
    const id = claimed.body.id as string;
    const body = `${IMG} ${SCRIPT} [docs](javascript:alert(5)) javascript:alert(6) data:text/html,${MARK} <a href="https://evil.example">x</a> https://example.com/ok‮gnp.exe`;
    expect(
      (
        await desk.api(
          'POST',
          `/work/${id}/comments`,
          { body, links: [{ url: 'https://example.com/a', title: IMG }] },
          'bot-x',
        )
      ).status,
    ).toBe(201);
    // The service refuses a javascript: link outright.
    expect(
      (await desk.api('POST', `/work/${id}/comments`, { body: 'x', links: [{ url: 'javascript:alert(7)' }] }, 'bot-x'))
        .status,
    ).toBe(422);
    expect(
      (await desk.api('POST', `/work/${id}/questions`, { question: MARK, options: [IMG, SCRIPT] }, 'bot-x')).status,
    ).toBe(201);

    const { page, context, dialogs, errors } = await openDesk(browser, desk.url, { path: `/#/items/${id}` });
    const comment = page.locator('li[data-comment-kind="note"]');
    await comment.waitFor();
    // The body reads as typed, with the override made visible.
    expect(await comment.locator('.comment-body').innerText()).toBe(body.replace('\u202E', '\u2039U+202E\u203a'));
    const hrefs = await page
      .locator('main a[target="_blank"]')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    // An address written out in full is a link whatever surrounds it; one stops at a bidi override.
    expect(hrefs).toEqual(['https://evil.example', 'https://example.com/ok', 'https://example.com/a']);
    expect(await comment.getByRole('link', { name: IMG }).count()).toBe(1);
    const question = page.locator('.question-card');
    await eventually(() => question.innerText()).toContain(MARK);
    expect(await question.getByRole('button').allInnerTexts()).toEqual([IMG, SCRIPT]);
    expect(await page.locator('main img, main script, a[href^="javascript:"], a[href^="data:"]').count()).toBe(0);

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /Needs you/ })
      .click();
    const entry = page.locator('li.needs-entry').filter({ hasText: 'Talked about' });
    await eventually(() => entry.innerText()).toContain(MARK);
    expect(await page.locator('main img, main script').count()).toBe(0);
    await screenshot(page, 'xss-needs-you-laptop');

    await page.waitForTimeout(300); // an onerror would have fired by now
    expect(dialogs).toEqual([]);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(errors).toEqual([]);
    await context.close();
  });
});
