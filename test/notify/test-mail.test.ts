import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { type MailApp, startMailApp } from './outbox-support.js';

// "Send me a test email" through HTTP on both stores: the mail reaches a real SMTP server through
// the outbox, a member may ask only for its own address, and a desk without mail says so.

describe.each(await storesUnderTest())('the test email on %s', (kind) => {
  let smtp: TestSmtpServer;
  let app: MailApp;
  const clock = createTestClock();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    app = await startMailApp(kind, smtp.port, clock);
  });
  afterAll(async () => {
    await app?.t.close();
    await smtp?.close();
  });

  it("a member's own test email goes through the outbox and shows as sent", async () => {
    const queued = await call(app.t.app, 'POST', '/people/mia/test-email', undefined, app.as.mia);
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body).toMatchObject({ kind: 'test', person: 'mia', address: 'mia@example.org', status: 'pending' });
    const mail = await smtp.next();
    expect(mail.to).toEqual(['mia@example.org']);
    expect(mail.parsed.subject).toBe('[agentdesk] Test email');
    expect(mail.parsed.messageId).toBe(queued.body.message_id);
    expect(mail.parsed.text).toContain('Questions and reviews for mia will come to this address');
    await app.sender().runOnce();
    const [row] = (await call(app.t.app, 'GET', '/notifications?person=mia', undefined, app.as.admin)).body.filter(
      (notification: { id: string }) => notification.id === queued.body.id,
    );
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it("another's address is refused to a member, an unknown person is a 404, an admin may send to anyone", async () => {
    const other = await call(app.t.app, 'POST', '/people/otto/test-email', undefined, app.as.mia);
    expect(other.status, other.text).toBe(403);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
    const unknown = await call(app.t.app, 'POST', '/people/nobody/test-email', undefined, app.as.admin);
    expect(unknown.status, unknown.text).toBe(404);
    const admin = await call(app.t.app, 'POST', '/people/otto/test-email', undefined, app.as.admin);
    expect(admin.status, admin.text).toBe(202);
    expect((await smtp.next()).to).toEqual(['otto@example.org']);
  });
});

describe.each(await storesUnderTest())('the test email without mail settings on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind, {});
  });
  afterAll(() => t?.close());

  it('is a 409 saying the desk sends no mail', async () => {
    const put = await call(
      t.app,
      'PUT',
      '/people/mia',
      { email: 'mia@example.org', notify: 'immediate' },
      {
        'x-user': 'mia',
      },
    );
    expect(put.status, put.text).toBe(201);
    const refused = await call(t.app, 'POST', '/people/mia/test-email', undefined, { 'x-user': 'mia' });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.detail).toContain('SMTP_URL and MAIL_FROM are not set');
  });
});
