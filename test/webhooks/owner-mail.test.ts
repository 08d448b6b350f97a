import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTransport, type Webhooks } from '../../src/webhooks/index.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { waitFor } from '../support/mail.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { NO_TIMER_MS, type Receiver, admin, startReceiver } from './support.js';
import { SECRET_KEY } from '../support/intake.js';

// Where mail is set up, the owner of an endpoint the desk turns off hears it by email (a real SMTP
// server on loopback): which endpoint, why, how to turn it back on, and never its whole URL.

describe.each(await storesUnderTest())('the owner of a turned-off webhook on %s', (kind) => {
  let t: TestApp;
  let webhooks: Webhooks | undefined;
  let receiver: Receiver;
  let smtp: TestSmtpServer;
  const clock = createTestClock(Date.parse('2027-01-10T10:00:00.000Z'));

  beforeAll(async () => {
    receiver = await startReceiver();
    smtp = await startSmtpServer();
    const http = createHttpTransport({ allowedHosts: ['127.0.0.1'], timeoutMs: 2_000 });
    t = await startWorkApp(
      kind,
      {
        ...AUTH_ENV,
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        AGENTDESK_SECRET_KEY: SECRET_KEY,
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        MAIL_FROM: 'Agent Desk <desk@example.org>',
      },
      {
        now: clock.now,
        sweepEveryMs: NO_TIMER_MS,
        webhooks: { transport: http.transport, sender: { pollMs: NO_TIMER_MS }, fanOutPollMs: NO_TIMER_MS },
        onWebhooks: (started) => (webhooks = started),
      },
    );
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await smtp?.close();
  });

  it('a 410 turns the endpoint off and mails its owner, naming the host only', async () => {
    const made = await call(
      t.app,
      'POST',
      '/webhooks',
      { url: `${receiver.url}?token=never-in-mail`, events: ['*'] },
      admin,
    );
    expect(made.status, made.text).toBe(201);
    const owner = made.body.created_by as string;
    const put = await call(t.app, 'PUT', `/people/${owner}`, { email: 'owner@example.org', notify: 'digest' }, admin);
    expect(put.status, put.text).toBe(201);

    receiver.answers.push({ status: 410 });
    expect((await call(t.app, 'POST', `/webhooks/${made.body.id}/test`, undefined, admin)).status).toBe(202);
    await webhooks!.fanOut();
    await webhooks!.start().runOnce();
    expect((await call(t.app, 'GET', `/webhooks/${made.body.id}`, undefined, admin)).body).toMatchObject({
      enabled: false,
      disabled_reason: 'gone',
    });

    const mail = await waitFor('the mail to the owner', async () =>
      smtp.received.find((received) => received.to.includes('owner@example.org')),
    );
    expect(mail.parsed.subject).toBe('[agentdesk] A webhook was turned off');
    expect(mail.parsed.text).toContain(`webhook ${made.body.id} (to ${new URL(receiver.url).host})`);
    expect(mail.parsed.text).toContain('410 Gone');
    expect(mail.parsed.text).not.toContain('never-in-mail');
    const told = await call(t.app, 'GET', `/notifications?person=${owner}`, undefined, admin);
    expect(told.body).toEqual([expect.objectContaining({ kind: 'notice', status: 'sent' })]);
  });
});
