import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { eventually, launchBrowser, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// With tokens: the page offers each role only what it may do in a conversation. A
// member (a person) has Needs you and answers there; an agent comments on its own item and sees
// the question it asked, with no buttons to answer it; a viewer reads the timeline and can
// neither comment nor answer.

let desk: Desk;
let browser: Browser;

async function call<T = any>(
  secret: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(desk.url + path, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function mint(role: string, name: string, agent?: string): Promise<string> {
  const r = await call(ADMIN_SECRET, 'POST', '/tokens', { role, name, ...(agent && { agent }) });
  expect(r.status).toBe(201);
  return r.body.token as string;
}

async function signedIn(
  token: string,
  viewport = { width: 1366, height: 860 },
): Promise<{ page: Page; close: () => Promise<void>; errors: string[] }> {
  const context = await browser.newContext({ baseURL: desk.url, viewport, locale: 'en-GB', timezoneId: 'UTC' });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('whoami').waitFor();
  return { page, close: () => context.close(), errors };
}

const navLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();

beforeAll(async () => {
  [desk, browser] = await Promise.all([startDesk({ ...AUTH_ENV }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
});

describe('the conversation by role', () => {
  it('a member answers from Needs you; the agent that asked sees no answer buttons; a viewer only reads', async () => {
    const agentToken = await mint('agent', 'ada-token', 'ada');
    const memberToken = await mint('member', 'mia');
    const viewerToken = await mint('viewer', 'val-token');
    expect(
      (await call(ADMIN_SECRET, 'POST', '/work', { type: 'conv_roles', description: 'Tidy the release notes' })).status,
    ).toBe(201);
    const claim = await call(agentToken, 'POST', '/work/claim', { types: ['conv_roles'], lease_s: 300 });
    expect(claim.status).toBe(200);
    const id = claim.body.id as string;

    const member = await signedIn(memberToken);
    expect(await navLinks(member.page)).toContain('Needs you');
    await member.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Needs you' }).click();
    await eventually(() => member.page.getByText('Nothing waits for a person.').count()).toBe(1);
    await eventually(() => member.page.locator('.live').innerText()).toBe('Live');

    const asked = await call(agentToken, 'POST', `/work/${id}/questions`, {
      question: 'Keep the old changelog?',
      options: ['keep', 'drop'],
    });
    expect(asked.status).toBe(201);
    await eventually(() => member.page.getByTestId('needs-you-count').innerText()).toMatch(/1$/);

    // The agent, on its own item: it may comment, and sees its question waiting, unanswerable.
    const agent = await signedIn(agentToken);
    expect(await navLinks(agent.page)).not.toContain('Needs you');
    await agent.page.goto(`/#/items/${id}`);
    const card = agent.page.locator('.question-card');
    await eventually(() => card.innerText()).toContain('Keep the old changelog?');
    expect(await card.getByRole('button').count()).toBe(0);
    const box = agent.page.getByRole('form', { name: 'Add a comment' });
    await box.getByLabel(/Comment/).fill('Waiting on this before I publish.');
    await box.getByRole('button', { name: 'Comment' }).click();
    await eventually(() => agent.page.locator('li[data-comment-kind="note"]').innerText()).toMatch(
      /ada \(agent\) commented/,
    );
    await screenshot(agent.page, 'conversation-agent-item');

    // The viewer reads it all and is offered nothing.
    const viewer = await signedIn(viewerToken);
    expect(await navLinks(viewer.page)).not.toContain('Needs you');
    await viewer.page.goto(`/#/items/${id}`);
    await eventually(() => viewer.page.locator('li[data-comment-kind="note"]').count()).toBe(1);
    await viewer.page.locator('.question-card').waitFor();
    expect(await viewer.page.getByRole('form', { name: 'Add a comment' }).count()).toBe(0);
    expect(await viewer.page.locator('main').getByRole('button').count()).toBe(0);

    // The member answers in place; the badge and the agent's page follow live.
    const entry = member.page.locator('li.needs-entry').filter({ hasText: 'Tidy the release notes' });
    await entry.getByRole('button', { name: 'keep' }).click();
    await eventually(() => entry.count()).toBe(0);
    await eventually(() => member.page.getByTestId('needs-you-count').count()).toBe(0);
    await eventually(() => card.count()).toBe(0);
    await eventually(() => agent.page.locator('li[data-comment-kind="answer"]').innerText()).toMatch(
      /mia \(member\) answered/,
    );
    const q = await call(agentToken, 'GET', `/work/${id}/questions/${asked.body.id}`);
    expect(q.body).toMatchObject({ status: 'answered', option: 'keep', answered_by: 'mia' });

    for (const s of [member, agent, viewer]) {
      expect(s.errors).toEqual([]);
      await s.close();
    }
    // Three people signed in at once, in three browser contexts: on a loaded shared machine the
    // default 30 s ran out once (12 s when it is quiet).
  }, 60_000);

  it('a member who did the work sees its review waiting, with no Approve (the service refuses it)', async () => {
    const holderToken = await mint('member', 'mo', 'mo');
    expect(
      (
        await call(ADMIN_SECRET, 'POST', '/work', {
          type: 'conv_own',
          description: 'Bump the version',
          review_required: true,
        })
      ).status,
    ).toBe(201);
    const claim = await call(holderToken, 'POST', '/work/claim', { types: ['conv_own'] });
    expect(claim.status).toBe(200);
    const id = claim.body.id as string;
    const done = await call(holderToken, 'PATCH', `/work/${id}`, { status: 'completed', outcome: 'success' });
    expect(done.body).toMatchObject({ status: 'blocked' });

    const holder = await signedIn(holderToken);
    await holder.page.goto(`/#/items/${id}`);
    const card = holder.page.locator('.question-card');
    await eventually(() => card.innerText()).toContain('your own work: another person reviews it');
    expect(await card.getByRole('button').count()).toBe(0);
    expect(holder.errors).toEqual([]);
    await holder.close();
  }, 60_000);
});
