import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { type ScheduleApp, admin, agentAda, askOn, mailsTo, putPerson, startScheduleApp } from './schedule-support.js';

// The daily digest through HTTP on both stores, to a real SMTP server, at a fixed clock: otto
// reads digests at 08:00 Europe/Berlin (07:00Z in winter) and gets one mail listing what waits
// for him, oldest first, with its links; a second pass that day sends nothing; bea, whom nothing
// waits for, gets nothing; the next day's digest lists only what still waits.

const MINUTE = 60_000;
const START = Date.parse('2027-01-15T06:00:00.000Z');

describe.each(await storesUnderTest())('the daily digest on %s', (kind) => {
  let smtp: TestSmtpServer;
  let testDatabase: TestDatabase;
  let desk: ScheduleApp;
  let ada: Record<string, string>;
  const clock = createTestClock(START);
  const asked: { item: string; question: string }[] = [];

  beforeAll(async () => {
    smtp = await startSmtpServer();
    testDatabase = await createTestDatabase(kind);
    desk = await startScheduleApp(testDatabase, smtp, clock);
    ada = await agentAda(desk.app);
    await putPerson(desk.app, 'mia', { email: 'mia@example.org', notify: 'immediate' });
    await putPerson(desk.app, 'otto', {
      email: 'otto@example.org',
      notify: 'digest',
      digest_at: '08:00',
      tz: 'Europe/Berlin',
    });
    // No digest_at and no tz: 08:00 UTC.
    await putPerson(desk.app, 'bea', { email: 'bea@example.org', notify: 'digest' });
  });
  afterAll(async () => {
    await desk?.close();
    await testDatabase?.destroy();
    await smtp?.close();
  });

  it('before 08:00 in Berlin no digest is written', async () => {
    asked.push(
      await askOn(
        desk.app,
        ada,
        { description: 'Fix <b>the</b> login', watchers: ['mia', 'otto'] },
        {
          question: 'Which <i>branch</i>?',
          options: ['main', 'next'],
        },
      ),
    );
    clock.advance(10 * MINUTE);
    asked.push(await askOn(desk.app, ada, { watchers: ['otto'] }, { question: 'Ship on Friday?' }));
    clock.advance(MINUTE);
    // Named to mia alone: otto's digest does not list it.
    asked.push(await askOn(desk.app, ada, { watchers: ['otto'] }, { question: 'Only for mia', to: ['mia'] }));
    clock.setTo(Date.parse('2027-01-15T06:59:00.000Z'));
    expect(await desk.scheduler.runOnce()).toEqual({ digests: 0, escalations: 0 });
    await desk.sender.runOnce();
    expect(mailsTo(smtp, 'otto@example.org')).toHaveLength(0);
  });

  it('at 08:00 in Berlin (07:00Z) otto gets one digest: what waits for him, oldest first, with its links', async () => {
    clock.setTo(Date.parse('2027-01-15T07:00:00.000Z'));
    expect(await desk.scheduler.runOnce()).toEqual({ digests: 1, escalations: 0 });
    await desk.sender.runOnce();
    const [mail, ...more] = mailsTo(smtp, 'otto@example.org');
    expect(more).toHaveLength(0);
    const { parsed } = mail!;
    expect(parsed.subject).toBe('[agentdesk] 2 questions wait for you (2027-01-15)');
    const text = parsed.text!;
    const [first, second] = asked;
    const firstAt = text.indexOf('Which <i>branch</i>?');
    const secondAt = text.indexOf('Ship on Friday?');
    expect(firstAt).toBeGreaterThan(-1);
    expect(secondAt).toBeGreaterThan(firstAt);
    expect(text).not.toContain('Only for mia');
    expect(text).toContain(`http://desk.example.org/answer/ans.${first!.question}.otto`);
    expect(text).toContain(`http://desk.example.org/#/items/${second!.item}`);
    const html = parsed.html as string;
    expect(html).not.toContain('<i>branch</i>');
    expect(html).not.toContain('<b>the</b>');
    expect(html).toContain('Which &lt;i&gt;branch&lt;/i&gt;?');
    expect(html).toContain(`href="http://desk.example.org/answer/ans.${second!.question}.otto"`);
    expect(parsed.messageId).toMatch(/^<digest\.[0-9a-f-]+@example\.org>$/);

    const listed = await call(desk.app, 'GET', '/notifications?person=otto', undefined, admin);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({ kind: 'digest', person: 'otto', status: 'sent', work_item_id: null }),
    ]);
  });

  it('a second pass the same day sends nothing more; bea, whom nothing waits for, gets nothing', async () => {
    clock.setTo(Date.parse('2027-01-15T07:30:00.000Z'));
    expect(await desk.scheduler.runOnce()).toEqual({ digests: 0, escalations: 0 });
    clock.setTo(Date.parse('2027-01-15T08:00:00.000Z'));
    expect(await desk.scheduler.runOnce()).toEqual({ digests: 0, escalations: 0 });
    clock.setTo(Date.parse('2027-01-15T22:59:00.000Z'));
    expect(await desk.scheduler.runOnce()).toEqual({ digests: 0, escalations: 0 });
    await desk.sender.runOnce();
    expect(mailsTo(smtp, 'otto@example.org')).toHaveLength(1);
    expect(mailsTo(smtp, 'bea@example.org')).toHaveLength(0);
  });

  it("the next day's digest lists only what still waits", async () => {
    const answered = await call(
      desk.app,
      'POST',
      `/work/${asked[0]!.item}/questions/${asked[0]!.question}/answer`,
      { option: 'main' },
      admin,
    );
    expect(answered.status, answered.text).toBe(200);
    clock.setTo(Date.parse('2027-01-16T07:00:00.000Z'));
    expect(await desk.scheduler.runOnce()).toEqual({ digests: 1, escalations: 0 });
    await desk.sender.runOnce();
    const mails = mailsTo(smtp, 'otto@example.org');
    expect(mails).toHaveLength(2);
    const { parsed } = mails[1]!;
    expect(parsed.subject).toBe('[agentdesk] 1 question waits for you (2027-01-16)');
    expect(parsed.text).toContain('Ship on Friday?');
    expect(parsed.text).not.toContain('Which <i>branch</i>?');
  });
});
