import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { type ScheduleApp, admin, agentAda, askOn, mailsTo, putPerson, startScheduleApp } from './schedule-support.js';

// Escalation through HTTP on both stores, to a real SMTP server, at a fixed clock: a question in
// a project with answer_within_s is not overdue before its deadline and nothing is sent; past
// it, it is overdue on its view and in /questions?overdue=true, and one mail goes to each of
// the project's escalate_to (not to one whose notify is off); a second pass sends nothing more.

const HOUR_S = 3_600;
const START = Date.parse('2027-02-01T09:00:00.000Z');

describe.each(await storesUnderTest())('escalation on %s', (kind) => {
  let smtp: TestSmtpServer;
  let testDatabase: TestDatabase;
  let desk: ScheduleApp;
  let ada: Record<string, string>;
  const clock = createTestClock(START);
  let late: { item: string; question: string };
  let timeless: { item: string; question: string };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    testDatabase = await createTestDatabase(kind);
    desk = await startScheduleApp(testDatabase, smtp, clock);
    ada = await agentAda(desk.app);
    await putPerson(desk.app, 'boss', { email: 'boss@example.org', notify: 'digest' });
    await putPerson(desk.app, 'quiet', { email: 'quiet@example.org', notify: 'off' });
    const project = await call(
      desk.app,
      'POST',
      '/projects',
      { name: 'launch', answer_within_s: HOUR_S, escalate_to: ['boss', 'quiet', 'ada'] },
      admin,
    );
    expect(project.status, project.text).toBe(201);
    late = await askOn(desk.app, ada, { project_id: project.body.id }, { question: 'Release <now>?' });
    clock.advance(60_000);
    // No project, no deadline: never overdue.
    timeless = await askOn(desk.app, ada, {}, { question: 'Whenever you like' });
  });
  afterAll(async () => {
    await desk?.close();
    await testDatabase?.destroy();
    await smtp?.close();
  });

  const question = async (asked: { item: string; question: string }) => {
    const got = await call(desk.app, 'GET', `/work/${asked.item}/questions/${asked.question}`, undefined, admin);
    expect(got.status, got.text).toBe(200);
    return got.body as { overdue: boolean; due_at: string | null };
  };
  const inbox = async (query: string) => {
    const got = await call(desk.app, 'GET', `/questions${query}`, undefined, admin);
    expect(got.status, got.text).toBe(200);
    return (got.body as { id: string; overdue: boolean }[]).map(({ id, overdue }) => ({ id, overdue }));
  };

  it('before the deadline: not overdue, nothing sent', async () => {
    expect(await question(late)).toMatchObject({
      overdue: false,
      due_at: new Date(START + HOUR_S * 1000).toISOString(),
    });
    expect(await question(timeless)).toMatchObject({ overdue: false, due_at: null });
    clock.setTo(START + HOUR_S * 1000 - 1_000);
    expect(await desk.scheduler.runOnce()).toEqual({ digests: 0, escalations: 0 });
    expect(await inbox('?overdue=true')).toEqual([]);
    await desk.sender.runOnce();
    expect(mailsTo(smtp, 'boss@example.org')).toHaveLength(0);
  });

  it('past it: overdue on the question and in the inbox, one mail to escalate_to', async () => {
    clock.setTo(START + HOUR_S * 1000);
    expect((await question(late)).overdue).toBe(true);
    expect(await inbox('?overdue=true')).toEqual([{ id: late.question, overdue: true }]);
    expect(await inbox('?overdue=false')).toEqual([{ id: timeless.question, overdue: false }]);
    expect(await inbox('')).toEqual([
      { id: late.question, overdue: true },
      { id: timeless.question, overdue: false },
    ]);

    expect(await desk.scheduler.runOnce()).toEqual({ digests: 0, escalations: 1 });
    await desk.sender.runOnce();
    const [mail, ...more] = mailsTo(smtp, 'boss@example.org');
    expect(more).toHaveLength(0);
    expect(mail!.parsed.subject).toBe('[agentdesk] Overdue: ada asks: Release <now>?');
    expect(mail!.parsed.text).toContain('Overdue: open since');
    expect(mail!.parsed.text).toContain(`http://desk.example.org/answer/ans.${late.question}.boss`);
    expect(mail!.parsed.html as string).toContain('Release &lt;now&gt;?');
    expect(mailsTo(smtp, 'quiet@example.org')).toHaveLength(0);
    expect(mailsTo(smtp, 'ada@example.org')).toHaveLength(0);

    const told = await call(desk.app, 'GET', `/work/${late.item}/notifications`, undefined, admin);
    expect(told.body).toEqual([
      expect.objectContaining({ kind: 'escalation', person: 'boss', question_id: late.question, status: 'sent' }),
    ]);
  });

  it('a second pass sends nothing more; an answered question is no longer overdue', async () => {
    clock.advance(HOUR_S * 1000);
    expect(await desk.scheduler.runOnce()).toEqual({ digests: 0, escalations: 0 });
    await desk.sender.runOnce();
    expect(mailsTo(smtp, 'boss@example.org')).toHaveLength(1);

    const answered = await call(
      desk.app,
      'POST',
      `/work/${late.item}/questions/${late.question}/answer`,
      { answer: 'yes' },
      admin,
    );
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body.overdue).toBe(false);
    expect(await inbox('?overdue=true')).toEqual([]);
  });

  it('a bad overdue filter is a 4xx problem', async () => {
    const got = await call(desk.app, 'GET', '/questions?overdue=maybe', undefined, admin);
    expect(got.status).toBeGreaterThanOrEqual(400);
    expect(got.status).toBeLessThan(500);
    expect(got.headers['content-type']).toContain('application/problem+json');
  });
});
