import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { type RecordingReceiver, startRecordingReceiver } from '../support/recording-receiver.js';
import { eventually, launchBrowser, screenshot, VIEWPORTS } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';
import { deskCall, fitsWidth, signIn } from './signed-in.js';
import { SECRET_KEY } from '../support/intake.js';

// The Webhooks page in the browser, with AUTH=tokens and a real receiver on 127.0.0.1: an admin
// adds an endpoint (the secret shown once, and it verifies what arrives), sends a test event, sees
// it in the delivery log with its attempt, redelivers it, disables, rotates and deletes. What the
// receiver answered is shown as text. At a desktop's and a phone's width; members see no entry.

let desk: Desk;
let browser: Browser;
let receiver: RecordingReceiver;

const admin = deskCall(() => desk.url, ADMIN_SECRET);
const signedIn = (token: string, viewport: keyof typeof VIEWPORTS, path: string) =>
  signIn(browser, desk.url, token, viewport, path);

/** Visible text under 12 px in the page's main landmark (Lighthouse's "legible font sizes"). */
function smallText(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const found = [];
    const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim() ?? '';
      const parent = node.parentElement;
      if (text === '' || !parent || parent.closest('.visually-hidden') || parent.getClientRects().length === 0) continue;
      const size = parseFloat(getComputedStyle(parent).fontSize);
      if (size < 12) found.push(size + 'px: ' + text.slice(0, 40));
    }
    return found;
  })()`);
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

beforeAll(async () => {
  receiver = await startRecordingReceiver();
  [desk, browser] = await Promise.all([
    startDesk({ ...AUTH_ENV, OUTBOUND_ALLOWED_HOSTS: '127.0.0.1', AGENTDESK_SECRET_KEY: SECRET_KEY }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
  await receiver?.close();
});

describe.each(['desktop', 'phone'] as const)('webhooks at %s width', (viewport) => {
  it('an admin adds an endpoint, keeps its secret, sends a test event, reads the log, redelivers, disables, rotates and deletes it', async () => {
    const url = `${receiver.url}?to=${viewport}`;
    // What the receiver answers is the other system's text: shown as such, never as markup.
    receiver.answer(200, '<img src=x onerror="alert(1)"> thanks');
    const { context, page, errors, dialogs } = await signedIn(ADMIN_SECRET, viewport, '/webhooks');
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('URL').fill(url);
    await form.getByRole('checkbox', { name: 'webhook.test' }).check();
    await form.getByRole('checkbox', { name: 'work.completed' }).check();
    await form.getByLabel('Description (optional)').fill(`Receiver at ${viewport} width`);
    await form.getByRole('button', { name: 'Add webhook' }).click();

    const secret = (await page.getByTestId('webhook-secret').innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.getByRole('status').filter({ hasText: 'shown only this once' }).count()).toBe(1);
    const [hook] = (await admin<Array<{ id: string; url: string }>>('GET', '/webhooks')).body.filter(
      (w) => w.url === url,
    );
    expect(hook).toBeDefined();
    const card = page.locator(`li[data-webhook="${hook!.id}"]`);
    await card.waitFor();
    expect(await card.getByTestId('webhook-state').innerText()).toBe('Enabled');
    expect(await card.innerText()).toContain('webhook.test, work.completed');
    await fitsWidth(page);
    await screenshot(page, `webhooks-added-${viewport}`);
    await page.getByRole('button', { name: 'Done' }).click();
    await eventually(() => page.getByTestId('webhook-secret').count()).toBe(0);

    // Deliveries to this viewport's endpoint only: the other run's retries may still arrive.
    const mine = () => receiver.received.filter((r) => r.url === `/hook?to=${viewport}`);
    await card.getByRole('button', { name: /^Send a test event/ }).click();
    const entry = card.locator('li.delivery').first();
    await eventually(() => entry.locator('.badge').innerText()).toBe('succeeded');
    expect(await entry.getByTestId('attempt-status').first().innerText()).toBe('HTTP 200');
    expect(await entry.locator('pre.attempt-body').first().innerText()).toBe('<img src=x onerror="alert(1)"> thanks');
    expect(await page.locator('li.delivery img').count()).toBe(0);
    const sent = mine()[0]!;
    expect(receiver.verify(sent, secret)).toMatchObject({ type: 'webhook.test' });
    const deliveryId = sent.headers['webhook-id'] as string;
    expect(await entry.getAttribute('data-delivery')).toBe(deliveryId);
    await fitsWidth(page);
    expect(await smallText(page)).toEqual([]);
    await screenshot(page, `webhooks-log-${viewport}`);

    // A receiver that fails, then Redeliver: the same webhook-id again, a second attempt in the log.
    receiver.answer(500, 'down for maintenance');
    await entry.getByRole('button', { name: `Redeliver ${deliveryId}` }).click();
    await eventually(() => mine().length).toBeGreaterThanOrEqual(2);
    expect(mine()[1]?.headers['webhook-id']).toBe(deliveryId);
    await eventually(() => entry.getByTestId('attempt-status').count()).toBeGreaterThanOrEqual(2);
    expect(await entry.innerText()).toContain('down for maintenance');
    await card.getByLabel('Status').selectOption('succeeded');
    await eventually(() => card.locator('li.delivery').count()).toBe(0);
    await card.getByLabel('Status').selectOption('');
    await eventually(() => card.locator('li.delivery').count()).toBe(1);
    await screenshot(page, `webhooks-redelivered-${viewport}`);
    receiver.answer(200, 'ok');

    await card.getByRole('button', { name: `Disable ${url}` }).click();
    await eventually(() => card.getByTestId('webhook-state').innerText()).toBe('Disabled: an admin disabled it');
    expect((await admin('GET', `/webhooks/${hook!.id}`)).body).toMatchObject({
      enabled: false,
      disabled_reason: 'admin',
    });
    await card.getByRole('button', { name: `Enable ${url}` }).click();
    await eventually(() => card.getByTestId('webhook-state').innerText()).toBe('Enabled');

    await card.getByRole('button', { name: `Rotate the secret of ${url}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    const rotated = (await page.getByTestId('webhook-secret').innerText()).trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await eventually(() => card.innerText()).toContain('Previous secret');
    await page.getByRole('button', { name: 'Done' }).click();

    await card.getByRole('button', { name: `Delete ${url}` }).click();
    await page.getByRole('button', { name: 'Keep it' }).click();
    expect((await admin('GET', `/webhooks/${hook!.id}`)).status).toBe(200);
    await card.getByRole('button', { name: `Delete ${url}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await eventually(() => card.count()).toBe(0);
    expect((await admin('GET', `/webhooks/${hook!.id}`)).status).toBe(404);
    expect(errors).toEqual([]);
    expect(dialogs).toEqual([]);
    await context.close();
  });
});

it('a refused URL is told in the service’s words; a member has no Webhooks entry', async () => {
  const { context, page, errors } = await signedIn(ADMIN_SECRET, 'desktop', '/webhooks');
  const form = page.getByRole('form', { name: 'New webhook' });
  await form.getByLabel('URL').fill('http://169.254.169.254/latest/meta-data/');
  await form.getByRole('checkbox', { name: 'All events, those added later too' }).check();
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await eventually(() => form.getByRole('alert').count()).toBe(1);
  expect(await form.getByRole('alert').innerText()).toMatch(/url: host 169\.254\.169\.254 is not allowed/);
  await screenshot(page, 'webhooks-refused-desktop');
  expect(errors).toEqual([]);
  await context.close();

  const minted = await admin('POST', '/tokens', { role: 'member', name: 'mia' });
  const member = await signedIn(minted.body.token, 'phone', '/dashboard');
  expect(await nav(member.page).getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
  await member.context.close();
});
