import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/apps.js';
import { FAKE_ANSWER, type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { startClassifyApp } from '../support/classify-app.js';
import { eventually, launchBrowser, openDesk, screenshot } from './browser.js';
import { type Desk, startDesk } from './desk-server.js';

// The whole chain as in production: page → work service (/ui-api/classify) → classification
// service → the fake LLM speaking the OpenAI wire format.

let fake: FakeLlm;
let classifier: TestApp;
let desk: Desk;
let browser: Browser;

beforeAll(async () => {
  fake = await startFakeLlm();
  classifier = await startClassifyApp('sqlite', {
    LLM_PROVIDER: 'openai',
    LLM_API_KEY: 'sk-test-ui',
    LLM_BASE_URL: fake.openaiBaseUrl,
    LLM_MAX_RETRIES: '0',
  });
  await classifier.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = classifier.app.server.address() as AddressInfo;
  [desk, browser] = await Promise.all([startDesk({ CLASSIFY_URL: `http://127.0.0.1:${port}` }), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await desk?.close();
  await classifier?.close();
  await fake?.close();
});

const GRAPH_MESSAGE = {
  id: 'AAMkAGI2TG93AAA=',
  internetMessageId: '<budget-q3@contoso.example>',
  conversationId: 'AAQkAGI2TG93conv=',
  subject: 'Q3 budget needs your approval',
  bodyPreview: 'Hi, please approve the Q3 budget by Friday.',
  body: { contentType: 'HTML', content: '<p>Hi,</p><p>please approve the <b>Q3 budget</b> by Friday.</p>' },
  from: { emailAddress: { name: 'Dana Swope', address: 'dana@contoso.example' } },
  toRecipients: [{ emailAddress: { name: 'Alice', address: 'alice@contoso.example' } }],
  receivedDateTime: '2026-11-20T09:15:00Z',
  hasAttachments: true,
  importance: 'high',
};

describe('classify an email from the browser', () => {
  it('classifies a pasted subject and body and turns it into an email_task work item', async () => {
    const { page, context, errors } = await openDesk(browser, desk.url, { path: '/#/classify' });
    await page.getByLabel('Subject', { exact: true }).fill('Q3 budget needs your approval');
    await page.getByLabel('Body (text or HTML)').fill('Hi Alice,\n\nplease approve the Q3 budget by Friday.\n\nDana');
    await page.getByRole('button', { name: 'Classify' }).click();

    const result = page.getByRole('region', { name: 'Classification' });
    await eventually(() => result.getByText(FAKE_ANSWER.task_description, { exact: true }).count()).toBe(1);
    expect(await result.innerText()).toContain('needs action');
    expect(await result.innerText()).toContain('action_required');
    expect(await result.innerText()).toContain('high priority');
    expect(await result.innerText()).toContain('92% confident');
    expect(await result.innerText()).toContain('Review the spreadsheet');
    const sent = fake.requests.at(-1)!;
    expect(JSON.stringify(sent.body)).toContain('Q3 budget needs your approval');
    await screenshot(page, 'classify-result-laptop');

    await result.getByRole('button', { name: /^Create work item/ }).click();
    const link = result.getByRole('link', { name: FAKE_ANSWER.task_description });
    await link.waitFor();
    await link.click();
    await page.waitForURL(/#\/items\//);
    const id = page.url().split('/').pop()!;
    const item = (await desk.api('GET', `/work/${id}`)).body;
    expect(item).toMatchObject({
      type: 'email_task',
      description: FAKE_ANSWER.task_description,
      priority: 1,
      status: 'queued',
      created_by: 'alice',
      payload: {
        classification: { category: 'action_required', needs_action: true, priority: 'high' },
        email: { subject: 'Q3 budget needs your approval' },
      },
    });
    await eventually(() => page.locator('pre.payload').innerText()).toContain('"category": "action_required"');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('classifies a whole Graph message pasted as JSON, and says so when the JSON is broken', async () => {
    fake.script({
      kind: 'answer',
      answer: { ...FAKE_ANSWER, priority: 'low', task_description: 'Skim the budget notes' },
    });
    const { page, context } = await openDesk(browser, desk.url, { path: '/#/classify', viewport: 'phone' });
    await page.getByLabel('Graph message JSON').check();
    const box = page.getByLabel('Microsoft Graph message (JSON)');
    await box.fill('{"subject": "half a message",');
    await page.getByRole('button', { name: 'Classify' }).click();
    await eventually(() => page.getByRole('alert').innerText()).toContain('Not valid JSON');

    await box.fill(JSON.stringify(GRAPH_MESSAGE, null, 2));
    await page.getByRole('button', { name: 'Classify' }).click();
    const result = page.getByRole('region', { name: 'Classification' });
    await eventually(() => result.getByText('Skim the budget notes', { exact: true }).count()).toBe(1);
    await screenshot(page, 'classify-result-phone');

    await result.getByRole('button', { name: /^Create work item/ }).click();
    await result.getByRole('link', { name: 'Skim the budget notes' }).waitFor();
    const items = (await desk.api('GET', '/work?type=email_task')).body as {
      description: string;
      priority: number;
      payload: any;
    }[];
    const made = items.find((i) => i.description === 'Skim the budget notes')!;
    expect(made.priority).toBe(5);
    expect(made.payload.email).toEqual({
      subject: GRAPH_MESSAGE.subject,
      message_id: GRAPH_MESSAGE.internetMessageId,
      conversation_id: GRAPH_MESSAGE.conversationId,
    });
    await context.close();
  });

  it('offers no work item for an email that needs no action, and shows a refusal in the service’s words', async () => {
    fake.script({
      kind: 'answer',
      answer: { ...FAKE_ANSWER, needs_action: false, category: 'newsletter', priority: 'low', task_description: null },
    });
    const { page, context } = await openDesk(browser, desk.url, { path: '/#/classify' });
    await page.getByLabel('Subject', { exact: true }).fill('This week in gardening');
    await page.getByRole('button', { name: 'Classify' }).click();
    const result = page.getByRole('region', { name: 'Classification' });
    await eventually(() => result.getByText('no action', { exact: true }).count()).toBe(1);
    expect(await result.getByRole('button', { name: /^Create work item/ }).count()).toBe(0);

    // Neither subject nor body: the page asks for one before sending anything.
    await page.getByLabel('Subject', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Classify' }).click();
    await eventually(() => page.getByRole('alert').innerText()).toContain('subject or a body');

    // A Graph message with a wrong field type: the classification service's 422, relayed.
    await page.getByLabel('Graph message JSON').check();
    await page.getByLabel('Microsoft Graph message (JSON)').fill('{"subject": "x", "toRecipients": "not a list"}');
    await page.getByRole('button', { name: 'Classify' }).click();
    await eventually(() => page.getByRole('alert').innerText()).toContain('toRecipients');
    await context.close();
  });
});
