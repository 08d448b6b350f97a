import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { SECRET_KEY } from '../support/intake.js';
import { mail, newMessageId } from '../support/mail.js';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// The Mailboxes page: connect a mailbox with its connection test, see it watch, mail
// arriving in the intake log with a link to its work item, edit the routing rules, import an
// .eml, and a wrong password named as such.

const PASSWORD = 'ui-test-imap-password';

let desk: Desk;
let browser: Browser;
let dovecot: Dovecot;
let fake: FakeLlm;

beforeAll(async () => {
  [dovecot, fake] = await Promise.all([startDovecot({ password: PASSWORD }), startFakeLlm()]);
  [desk, browser] = await Promise.all([
    startDesk({
      AGENTDESK_SECRET_KEY: SECRET_KEY,
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: fake.openaiBaseUrl,
      LLM_API_KEY: 'sk-fake-ui',
      LLM_MAX_RETRIES: '0',
      INTAKE_POLL_S: '300',
      INTAKE_ALLOWED_HOSTS: dovecot.host,
    }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
  await dovecot?.close();
  await fake?.close();
});

describe('mailboxes page', () => {
  it('connects a mailbox, shows mail becoming work items, edits the rules and imports a file', async () => {
    const { page, errors } = await openDesk(browser, desk.url, { path: '/#/mailboxes' });
    await page.getByRole('heading', { name: 'Mailboxes', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'Connect a mailbox' });
    await form.getByLabel('Name', { exact: true }).fill('Support');
    await form.getByLabel('Server').fill(dovecot.host);
    await form.getByLabel('Port').fill(String(dovecot.port));
    await form.getByLabel('Security').selectOption('none');
    await form.getByLabel('Username').fill('ui-support');
    await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await form.getByRole('button', { name: 'Connect and test' }).click();

    // A working connection opens the mailbox's page, which soon shows it watching.
    await page.waitForURL(/#\/mailboxes\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Support' }).waitFor();
    await eventually(() => page.getByText('Watching').count()).toBe(1);

    const messageId = newMessageId();
    await dovecot.append('ui-support', [
      mail({ subject: 'Please renew the domain', text: 'The domain expires on Friday, please renew it.', messageId }),
    ]);
    const created = page.getByRole('link', { name: 'Work item created' });
    await eventually(() => created.count()).toBe(1);
    await screenshot(page, 'mailbox-page');

    await page.getByRole('button', { name: 'Test connection' }).click();
    await eventually(() => page.getByTestId('connection-test').innerText()).toContain('Connection works');

    // A rule: mail from vendor.io is only recorded.
    const rules = page.getByRole('form', { name: 'Routing rules' });
    await rules.getByRole('button', { name: 'Add rule' }).click();
    await rules.getByLabel('Sender (addresses or domains)').fill('vendor.io');
    await rules.getByRole('combobox', { name: /^Action/ }).selectOption('record');
    await rules.getByRole('button', { name: 'Save rules' }).click();
    await eventually(() => rules.getByText('Saved.').count()).toBe(1);
    const [mailbox] = (await desk.api('GET', '/mailboxes')).body;
    expect(mailbox.rules).toEqual([{ match: { sender: ['vendor.io'] }, action: 'record' }]);

    // An export, uploaded as a file.
    const imported = newMessageId();
    await page.getByLabel('An .eml file or an mbox').setInputFiles({
      name: 'exported.eml',
      mimeType: 'message/rfc822',
      buffer: Buffer.from(
        mail({ subject: 'Imported: sign the lease', text: 'Please sign the office lease.', messageId: imported }),
      ),
    });
    await page.getByRole('button', { name: 'Import' }).click();
    await eventually(() => page.getByText('1 message queued').count()).toBe(1);
    await eventually(() => page.getByRole('link', { name: 'Work item created' }).count()).toBe(2);

    await created.first().click();
    await page.waitForURL(/#\/items\//);
    expect(errors).toEqual([]);
  });

  it('names a wrong password as a login failure and keeps the mailbox to fix', async () => {
    const { page } = await openDesk(browser, desk.url, { path: '/#/mailboxes' });
    const form = page.getByRole('form', { name: 'Connect a mailbox' });
    await form.getByLabel('Name', { exact: true }).fill('Wrong password');
    await form.getByLabel('Server').fill(dovecot.host);
    await form.getByLabel('Port').fill(String(dovecot.port));
    await form.getByLabel('Security').selectOption('none');
    await form.getByLabel('Username').fill('ui-other');
    await form.getByLabel('Password', { exact: true }).fill('not-the-password');
    await form.getByLabel('Watch it now').uncheck();
    await form.getByRole('button', { name: 'Connect and test' }).click();
    await eventually(() => form.getByTestId('connection-test').innerText()).toContain('Failed at login');
    await form.getByRole('link', { name: 'its page' }).click();
    await page.getByRole('heading', { name: 'Wrong password' }).waitFor();
    expect(await page.getByRole('button', { name: 'Enable' }).count()).toBe(1);
    // The list shows both, the secret nowhere.
    await page.getByRole('link', { name: '← Mailboxes' }).click();
    await eventually(() => page.getByRole('row').count()).toBe(3);
    expect(await page.content()).not.toContain(PASSWORD);
  });
});
