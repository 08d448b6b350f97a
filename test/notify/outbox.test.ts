import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { type MailApp, SMTP_PASSWORD, claimedItem, startMailApp } from './outbox-support.js';

// Email out through HTTP on both stores, to a real SMTP server over TCP: a question and a review
// each mail the people told at once (profiles made through PUT /people, watching the item), with
// the desk's Message-ID, the reply
// token, both parts and the item escaped; a refusing server shows as failed and is retried when
// the test moves the clock; the SMTP password is in no log, answer or row.

describe.each(await storesUnderTest())('the notification outbox on %s', (kind) => {
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

  const ask = (id: string, body: unknown) => call(app.t.app, 'POST', `/work/${id}/questions`, body, app.as.ada);

  it('a question mails mia alone: subject, Message-ID, Reply-To with the token, text and escaped HTML, option links, the thread', async () => {
    const item = await claimedItem(app, {
      description: 'Fix <b>the</b> login page',
      priority: 3,
      payload: { email: { message_id: '<orig-1@mail.example.com>', in_reply_to: null }, thread: [] },
    });
    const asked = await ask(item.id, {
      question: 'Ship it? <script>alert(1)</script>',
      options: ['yes', 'no & wait'],
    });
    expect(asked.status, asked.text).toBe(201);
    const question = asked.body as { id: string };

    const mail = await smtp.next();
    // The server has the mail a moment before the sender records it: the pass after it has.
    await app.sender().runOnce();
    expect(mail.to).toEqual(['mia@example.org']);
    const { parsed } = mail;
    expect(parsed.subject).toBe('[agentdesk] ada asks: Ship it? <script>alert(1)</script>');
    const [row] = (await call(app.t.app, 'GET', `/work/${item.id}/notifications`, undefined, app.as.mia)).body;
    expect(parsed.messageId).toBe(`<q.${question.id}.${row.id}@example.org>`);
    expect(parsed.replyTo?.value[0]?.address).toBe(`desk+r.${row.id}@example.org`);
    expect(parsed.inReplyTo).toBe('<orig-1@mail.example.com>');
    expect(parsed.references).toBe('<orig-1@mail.example.com>');
    expect(parsed.headers.get('auto-submitted')).toBe('auto-generated');

    expect(parsed.text).toContain('Ship it? <script>alert(1)</script>');
    expect(parsed.text).toContain(`http://desk.example.org/answer/ans.${question.id}.mia?option=2`);
    expect(parsed.text).toContain(`http://desk.example.org/#/items/${item.id}`);
    expect(parsed.text).toContain('Priority: 3');
    const html = parsed.html as string;
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>the</b>');
    expect(html).toContain('Ship it? &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Fix &lt;b&gt;the&lt;/b&gt; login page');
    expect(html).toContain(`href="http://desk.example.org/answer/ans.${question.id}.mia?option=1"`);
    expect(html).toContain('no &amp; wait');

    // Who was told, and when: mia only (otto reads digests, ada asked).
    expect(row).toMatchObject({
      kind: 'question',
      person: 'mia',
      address: 'mia@example.org',
      question_id: question.id,
      status: 'sent',
      attempts: 1,
      last_error: null,
    });
    expect(row.sent_at).not.toBeNull();
    expect(row).not.toHaveProperty('text_body');
  });

  it('a review mails mia with a subject that says so', async () => {
    const project = (
      await call(app.t.app, 'POST', '/projects', { name: `reviewed-${kind}`, review_required: true }, app.as.admin)
    ).body;
    const item = await claimedItem(app, { project_id: project.id, description: 'Release notes for 2.1' });
    const done = await call(
      app.t.app,
      'PATCH',
      `/work/${item.id}`,
      { status: 'completed', outcome: 'success' },
      app.as.ada,
    );
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe('blocked');
    const mail = await smtp.next();
    await app.sender().runOnce();
    expect(mail.to).toEqual(['mia@example.org']);
    expect(mail.parsed.subject).toBe('[agentdesk] ada asks for a review: Release notes for 2.1');
    expect(mail.parsed.text).toContain(`Project: reviewed-${kind}`);
    expect(mail.parsed.html).toContain('>approve</a>');
    expect(mail.parsed.html).toContain('>return</a>');
    expect(mail.parsed.inReplyTo).toBeUndefined();
    const rows = (await call(app.t.app, 'GET', `/work/${item.id}/notifications`, undefined, app.as.mia)).body;
    expect(rows).toMatchObject([{ kind: 'review', person: 'mia', status: 'sent' }]);
  });

  it('a refusing server: the row shows failed with its error, then goes once the server accepts and the clock moves', async () => {
    smtp.refusing = true;
    const item = await claimedItem(app);
    const asked = await ask(item.id, { question: 'Which region?' });
    expect(asked.status, asked.text).toBe(201);
    await app.sender().runOnce();
    const failed = await call(
      app.t.app,
      'GET',
      `/notifications?status=failed&work_item_id=${item.id}`,
      undefined,
      app.as.admin,
    );
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body).toHaveLength(1);
    expect(failed.body[0]).toMatchObject({ status: 'failed', attempts: 1, person: 'mia' });
    expect(failed.body[0].last_error).toMatch(/550/);
    expect(Date.parse(failed.body[0].next_attempt_at)).toBeGreaterThan(clock.now().getTime());

    smtp.refusing = false;
    // Not due yet: nothing goes before the backoff has passed.
    expect(await app.sender().runOnce()).toBe(0);
    clock.advance(31_000);
    expect(await app.sender().runOnce()).toBe(1);
    const mail = await smtp.next();
    expect(mail.parsed.subject).toBe('[agentdesk] ada asks: Which region?');
    const [row] = (await call(app.t.app, 'GET', `/work/${item.id}/notifications`, undefined, app.as.mia)).body;
    expect(row).toMatchObject({ status: 'sent', attempts: 2, next_attempt_at: null });
    expect(
      (await call(app.t.app, 'GET', `/notifications?status=failed&work_item_id=${item.id}`, undefined, app.as.admin))
        .body,
    ).toEqual([]);
  });

  it('GET /notifications is for admins, paged, and refuses bad filters with a problem', async () => {
    expect((await call(app.t.app, 'GET', '/notifications', undefined, app.as.mia)).status).toBe(403);
    const first = await call(app.t.app, 'GET', '/notifications?limit=1&person=mia', undefined, app.as.admin);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toHaveLength(1);
    const link = String(first.headers.link);
    const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
    expect(next).toBeDefined();
    const second = await call(app.t.app, 'GET', next!, undefined, app.as.admin);
    expect(second.status, second.text).toBe(200);
    expect(second.body[0].id).not.toBe(first.body[0].id);
    const bad = await call(app.t.app, 'GET', '/notifications?status=lost', undefined, app.as.admin);
    expect(bad.status).toBe(422);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    const cursor = await call(app.t.app, 'GET', '/notifications?cursor=nope', undefined, app.as.admin);
    expect(cursor.status).toBe(422);
    const unknown = await call(
      app.t.app,
      'GET',
      '/work/00000000-0000-4000-8000-000000000000/notifications',
      undefined,
      app.as.mia,
    );
    expect(unknown.status).toBe(404);
  });

  it('the SMTP password signed the desk in, and is in no log, answer or row', async () => {
    expect(smtp.logins.some((login) => login.user === 'desk' && login.password === SMTP_PASSWORD)).toBe(true);
    expect(app.t.logs.text()).toContain('mail: on');
    expect(app.t.logs.text()).not.toContain(SMTP_PASSWORD);
    const all = await call(app.t.app, 'GET', '/notifications?limit=200', undefined, app.as.admin);
    expect(all.text).not.toContain(SMTP_PASSWORD);
    expect(await dumpDatabase(app.t.database)).not.toContain(SMTP_PASSWORD);
  });
});
