import { mkdir } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { eventually, launchBrowser, VIEWPORTS } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';
import { deskCall, fitsWidth, mintToken, signIn } from './signed-in.js';

// People in the browser, with AUTH=tokens and mail going to a real SMTP server: an admin keeps
// profiles on the People page, a member its own on My notifications, watchers set on an item show
// on it, and the item lists who was emailed, how sending went and how an answer came. At a
// desktop's and a phone's width.

const SHOTS = process.env.UI_SHOTS_DIR ?? '/tmp/ui-shots';
/** The base of the links in mail; a test opens them on the desk's real address. */
const PUBLIC_URL = 'http://desk.example.org';

let desk: Desk;
let browser: Browser;
let smtp: TestSmtpServer;

const admin = deskCall(() => desk.url, ADMIN_SECRET);
const mint = (role: string, name: string) => mintToken(admin, role, name);
const signedIn = (token: string, viewport: keyof typeof VIEWPORTS, path: string) =>
  signIn(browser, desk.url, token, viewport, path);

async function shot(page: Page, name: string): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

beforeAll(async () => {
  smtp = await startSmtpServer();
  [desk, browser] = await Promise.all([
    startDesk({
      ...AUTH_ENV,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Agent Desk <desk@example.org>',
      PUBLIC_URL: PUBLIC_URL,
    }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
  await smtp?.close();
});

describe.each(['desktop', 'phone'] as const)('people at %s width', (viewport) => {
  it('an admin adds a person, edits the profile, is refused a bad address in the service’s words, and deletes it after a confirmation', async () => {
    const name = `otto-${viewport}`;
    const { context, page, errors } = await signedIn(ADMIN_SECRET, viewport, '/people');
    await page.getByRole('heading', { name: 'People' }).waitFor();
    const form = page.getByRole('form', { name: 'New person' });
    await form.getByLabel('Name (as the person signs in)').fill(name);
    await form.getByLabel('Email', { exact: true }).fill(`${name}@example.org`);
    await form.getByLabel('Email me').selectOption('digest');
    await form.getByLabel('Digest time').fill('08:30');
    await form.getByLabel('Time zone').selectOption('Europe/Berlin');
    await form.getByRole('button', { name: 'Save person' }).click();
    const row = page.locator(`tr[data-person="${name}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('08:30 Europe/Berlin');
    expect((await admin('GET', `/people/${name}`)).body).toMatchObject({
      email: `${name}@example.org`,
      notify: 'digest',
      digest_at: '08:30',
      tz: 'Europe/Berlin',
    });
    await fitsWidth(page);
    await shot(page, `people-${viewport}`);
    await row.getByRole('button', { name: `Edit ${name}` }).click();
    await shot(page, `people-editing-${viewport}`);
    await page
      .getByRole('form', { name: `Edit ${name}` })
      .getByRole('button', { name: 'Cancel' })
      .click();

    // An address the browser lets through but the service refuses: its problem, in its words.
    await row.getByRole('button', { name: `Edit ${name}` }).click();
    const edit = page.getByRole('form', { name: `Edit ${name}` });
    await edit.getByLabel('Email me').selectOption('immediate');
    await edit.getByLabel('Email', { exact: true }).fill(`${'x'.repeat(250)}@example.org`);
    await edit.getByRole('button', { name: 'Save' }).click();
    await eventually(() => edit.getByRole('alert').count()).toBe(1);
    expect(await edit.getByRole('alert').innerText()).toContain('email');
    await edit.getByLabel('Email', { exact: true }).fill(`${name}@example.net`);
    await edit.getByRole('button', { name: 'Save' }).click();
    await eventually(async () => (await admin('GET', `/people/${name}`)).body.email).toBe(`${name}@example.net`);
    expect((await admin('GET', `/people/${name}`)).body).toMatchObject({ notify: 'immediate', tz: 'Europe/Berlin' });
    await eventually(() => row.innerText()).toContain('immediate');

    await row.getByRole('button', { name: `Delete ${name}` }).click();
    await page.getByRole('button', { name: 'Keep it' }).click();
    expect((await admin('GET', `/people/${name}`)).status).toBe(200);
    await row.getByRole('button', { name: `Delete ${name}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await eventually(() => row.count()).toBe(0);
    expect((await admin('GET', `/people/${name}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a member without a profile creates its own on My notifications, changes it, sends itself a test email, and has no People page', async () => {
    const name = `mia-${viewport}`;
    const token = await mint('member', name);
    const { context, page, errors } = await signedIn(token, viewport, '/notifications');
    expect(await nav(page).getByRole('link', { name: 'People' }).count()).toBe(0);
    expect(await nav(page).getByRole('link', { name: 'My notifications' }).count()).toBe(1);
    const form = page.getByRole('form', { name: 'My profile' });
    await eventually(() => form.getByRole('note').innerText()).toContain('no profile yet');
    await form.getByLabel('Email', { exact: true }).fill(`${name}@example.org`);
    await form.getByLabel('Time zone').selectOption('America/New_York');
    await form.getByRole('button', { name: 'Create my profile' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await admin('GET', `/people/${name}`)).body).toMatchObject({
      email: `${name}@example.org`,
      notify: 'immediate',
      digest_at: null,
      tz: 'America/New_York',
    });

    // Read back on a fresh visit, then changed.
    await page.reload();
    await eventually(() => form.getByLabel('Email', { exact: true }).inputValue()).toBe(`${name}@example.org`);
    await form.getByLabel('Email me').selectOption('off');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await admin('GET', `/people/${name}`)).body.notify).toBe('off');
    // The test email goes whatever the mode: it checks the address and the desk's mail.
    await page.getByRole('button', { name: 'Send me a test email' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `A test email to ${name}@example.org is on its way.` })
      .waitFor();
    const test = await smtp.next();
    expect(test.to).toEqual([`${name}@example.org`]);
    expect(test.parsed.subject).toBe('[agentdesk] Test email');
    await fitsWidth(page);
    await shot(page, `my-notifications-${viewport}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an admin sets a project’s watchers, answer time and escalation in its editor, and its card says so', async () => {
    const { body: project } = await admin('POST', '/projects', { name: `Escalating ${viewport}` });
    const { context, page, errors } = await signedIn(ADMIN_SECRET, viewport, '/projects');
    const card = page.getByRole('article', { name: `Project Escalating ${viewport}` });
    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: `Edit project Escalating ${viewport}` });
    await edit.getByLabel('Watchers').fill('ada, bob');
    await edit.getByLabel('Answer within (minutes)').fill('90');
    await edit.getByLabel('Escalate to').fill('carol bad/name');
    expect(await edit.locator('.field-error').innerText()).toContain('Not a name: bad/name');
    await edit.getByLabel('Escalate to').fill('carol');
    await fitsWidth(page);
    await shot(page, `project-editor-${viewport}`);
    await edit.getByRole('button', { name: 'Save' }).click();
    await eventually(() => card.getByTestId('project-people').innerText()).toContain(
      'Watchers: ada, bob · answer within 90 min, then tell carol',
    );
    expect((await admin('GET', `/projects/${project.id}`)).body).toMatchObject({
      watchers: ['ada', 'bob'],
      answer_within_s: 5400,
      escalate_to: ['carol'],
    });

    // Emptied: no watchers, never overdue.
    await card.getByRole('button', { name: 'Edit' }).click();
    await edit.getByLabel('Watchers').fill('');
    await edit.getByLabel('Answer within (minutes)').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await eventually(async () => (await admin('GET', `/projects/${project.id}`)).body.answer_within_s).toBeNull();
    expect((await admin('GET', `/projects/${project.id}`)).body.watchers).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('watchers named when submitting work show on the new item', async () => {
    const { context, page, errors } = await signedIn(ADMIN_SECRET, viewport, '/new');
    await page.getByLabel('Type').fill('docs');
    await page.getByLabel('Description').fill(`Watched from the start (${viewport})`);
    await page.getByLabel('Watchers (optional)').fill('ada bob, ada');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL(/#\/items\//);
    await eventually(() => page.getByTestId('item-watchers').innerText()).toBe('ada, bob');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('watchers set in the item editor show on the item; it lists who was emailed (sent, then refused with the error) and says an answer came by the email’s link', async () => {
    const watcher = `wanda-${viewport}`;
    expect(
      (await admin('PUT', `/people/${watcher}`, { email: `${watcher}@example.org`, notify: 'immediate' })).status,
    ).toBe(201);
    const { body: project } = await admin('POST', '/projects', { name: `Mail ${viewport}`, watchers: ['pat'] });
    const { body: item } = await admin('POST', '/work', {
      type: 'docs',
      description: `Write the release notes (${viewport})`,
      project_id: project.id,
    });
    const { context, page, errors } = await signedIn(ADMIN_SECRET, viewport, `/items/${item.id}`);
    await page.getByRole('button', { name: 'Edit item' }).click();
    await page.getByLabel('Watchers').fill(`${watcher}, bob`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => page.getByTestId('item-watchers').innerText()).toContain(`${watcher}, bob`);
    expect(await page.getByTestId('item-watchers').innerText()).toContain("and the project's: pat");
    expect((await admin('GET', `/work/${item.id}`)).body.watchers).toEqual([watcher, 'bob']);
    // The timeline says whom the edit added, in words rather than the stored lists.
    const edit = page
      .getByRole('list', { name: 'Timeline, oldest first' })
      .locator('li[data-kind="change"]', { hasText: 'Watchers:' });
    await eventually(() => edit.innerText()).toContain(`Watchers: added ${watcher}, bob`);
    expect(await edit.innerText()).not.toContain('[');

    // A question: mailed to the watcher with a profile (bob and pat have none).
    const asked = await admin('POST', `/work/${item.id}/questions`, {
      question: 'Which version?',
      options: ['1.0', '2.0'],
    });
    expect(asked.status).toBe(201);
    const mail = await smtp.next();
    expect(mail.to).toEqual([`${watcher}@example.org`]);
    const link = /http:\/\/desk\.example\.org\/answer\/[^\s?"<>]+/.exec(mail.parsed.text ?? '')?.[0];
    expect(link).toBeDefined();
    const card = page.getByRole('region', { name: 'Told by email' });
    const told = card.getByRole('list', { name: 'Emails about this item, oldest first' });
    // Read again by itself while the mail waits to go.
    await eventually(() => told.locator('li[data-status="sent"]').count()).toBe(1);
    expect(await told.innerText()).toContain(`${watcher}@example.org`);

    // Answered with one click on the email's link: the timeline says how the answer came.
    const answerPage = await context.newPage();
    await answerPage.goto(link!.replace(PUBLIC_URL, desk.url));
    await answerPage.getByRole('button', { name: '2.0' }).click();
    await eventually(async () => (await admin('GET', `/work/${item.id}/questions/${asked.body.id}`)).body.via).toBe(
      'link',
    );
    await answerPage.close();
    await eventually(() => page.locator('li[data-comment-kind="answer"]').innerText()).toContain(
      'answered with an email link',
    );

    // The next one is refused by the server: the item says so, with the server's words.
    smtp.refusing = true;
    expect((await admin('POST', `/work/${item.id}/questions`, { question: 'Ship it today?' })).status).toBe(201);
    await eventually(() => told.locator('li[data-status="failed"]').count()).toBe(1);
    expect(await told.locator('li[data-status="failed"]').innerText()).toContain('not sent after 1 attempt');
    smtp.refusing = false;
    await fitsWidth(page);
    await shot(page, `item-told-${viewport}`);
    await card.screenshot({ path: `${SHOTS}/item-told-card-${viewport}.png` });
    expect(errors).toEqual([]);
    await context.close();
  });
});
