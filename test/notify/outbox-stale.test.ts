import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKIP_REASONS } from '../../src/notify/outbox/sender.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { type MailApp, claimedItem, startMailApp } from './outbox-support.js';

// Stale mail, through HTTP on both stores: a question's mail that could not go at once (the
// server refused it) is not sent later when the question has closed meanwhile, answered on the
// desk or moot because its item finished. It shows as skipped, with why, and counts no attempt.

describe.each(await storesUnderTest())('mail about a closed question on %s', (kind) => {
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

  /** An item whose question's mail was refused once and waits for its retry. */
  async function questionWithMailWaiting(): Promise<{ item: string; question: string }> {
    smtp.refusing = true;
    const { id } = await claimedItem(app);
    const asked = await call(app.t.app, 'POST', `/work/${id}/questions`, { question: 'Which region?' }, app.as.ada);
    expect(asked.status, asked.text).toBe(201);
    await app.sender().runOnce();
    const [row] = (await call(app.t.app, 'GET', `/work/${id}/notifications`, undefined, app.as.mia)).body;
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row.next_attempt_at).not.toBeNull();
    smtp.refusing = false;
    return { item: id, question: asked.body.id as string };
  }

  async function notificationOf(item: string) {
    const rows = (await call(app.t.app, 'GET', `/work/${item}/notifications`, undefined, app.as.mia)).body;
    expect(rows).toHaveLength(1);
    return rows[0];
  }

  it('answered on the desk before the retry: the mail is skipped, not sent, and says why', async () => {
    const { item, question } = await questionWithMailWaiting();
    const answered = await call(
      app.t.app,
      'POST',
      `/work/${item}/questions/${question}/answer`,
      { answer: 'eu-west' },
      app.as.mia,
    );
    expect(answered.status, answered.text).toBe(200);
    const before = smtp.received.length;
    clock.advance(31_000);
    expect(await app.sender().runOnce()).toBe(0);
    expect(smtp.received).toHaveLength(before);
    expect(await notificationOf(item)).toMatchObject({
      status: 'skipped',
      attempts: 1,
      next_attempt_at: null,
      sent_at: null,
      last_error: SKIP_REASONS.answered,
    });
    const listed = await call(
      app.t.app,
      'GET',
      `/notifications?status=skipped&work_item_id=${item}`,
      undefined,
      app.as.admin,
    );
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toMatchObject([{ question_id: question, status: 'skipped' }]);
    // Final: later passes leave it alone.
    clock.advance(3_600_000);
    expect(await app.sender().runOnce()).toBe(0);
    expect(smtp.received).toHaveLength(before);
  });

  it('moot because its item failed: skipped with that reason', async () => {
    const { item, question } = await questionWithMailWaiting();
    const finished = await call(
      app.t.app,
      'PATCH',
      `/work/${item}`,
      { status: 'failed', outcome: 'failed' },
      app.as.admin,
    );
    expect(finished.status, finished.text).toBe(200);
    const closed = await call(app.t.app, 'GET', `/work/${item}/questions/${question}`, undefined, app.as.mia);
    expect(closed.body.status).toBe('moot');
    const before = smtp.received.length;
    clock.advance(31_000);
    expect(await app.sender().runOnce()).toBe(0);
    expect(smtp.received).toHaveLength(before);
    expect(await notificationOf(item)).toMatchObject({ status: 'skipped', last_error: SKIP_REASONS.moot });
  });

  it('a question still open when the retry is due: the mail goes', async () => {
    const { item } = await questionWithMailWaiting();
    clock.advance(31_000);
    expect(await app.sender().runOnce()).toBe(1);
    expect((await smtp.next()).parsed.subject).toBe('[agentdesk] ada asks: Which region?');
    expect(await notificationOf(item)).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
  });
});
