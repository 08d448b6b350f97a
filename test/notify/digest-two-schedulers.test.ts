import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { type ScheduleApp, admin, agentAda, askOn, mailsTo, putPerson, startScheduleApp } from './schedule-support.js';

// Two instances on one PostgreSQL, each with its own scheduler, passing at the same moment: the
// day's digest_runs row and the guarded escalated_at let one of them write each mail, once.

const stores = await storesUnderTest();
const START = Date.parse('2027-03-01T05:00:00.000Z');

describe.skipIf(!stores.includes('postgres'))('two schedulers on one PostgreSQL', () => {
  let smtp: TestSmtpServer;
  let testDatabase: TestDatabase;
  let desks: ScheduleApp[] = [];
  const clock = createTestClock(START);

  beforeAll(async () => {
    smtp = await startSmtpServer();
    testDatabase = await createTestDatabase('postgres');
    desks = [await startScheduleApp(testDatabase, smtp, clock), await startScheduleApp(testDatabase, smtp, clock)];
  });
  afterAll(async () => {
    for (const desk of desks) await desk.close();
    await testDatabase?.destroy();
    await smtp?.close();
  });

  it('send one digest and one escalation per question between them, whatever the passes', async () => {
    const [a, b] = desks as [ScheduleApp, ScheduleApp];
    await putPerson(a.app, 'otto', { email: 'otto@example.org', notify: 'digest', digest_at: '06:30' });
    await putPerson(a.app, 'boss', { email: 'boss@example.org', notify: 'immediate' });
    const project = await call(
      a.app,
      'POST',
      '/projects',
      { name: 'rush', answer_within_s: 600, escalate_to: ['boss'], watchers: ['otto'] },
      admin,
    );
    expect(project.status, project.text).toBe(201);
    const ada = await agentAda(a.app);
    for (let n = 0; n < 3; n += 1) {
      await askOn(a.app, ada, { project_id: project.body.id }, { question: `Question ${n}` });
      clock.advance(1_000);
    }
    clock.setTo(Date.parse('2027-03-01T06:30:00.000Z'));
    const passes = await Promise.all([
      a.scheduler.runOnce(),
      b.scheduler.runOnce(),
      a.scheduler.runOnce(),
      b.scheduler.runOnce(),
    ]);
    expect(passes.reduce((sum, pass) => sum + pass.digests, 0)).toBe(1);
    expect(passes.reduce((sum, pass) => sum + pass.escalations, 0)).toBe(3);
    await Promise.all([a.sender.runOnce(), b.sender.runOnce()]);
    await a.sender.runOnce();
    const digests = mailsTo(smtp, 'otto@example.org');
    expect(digests).toHaveLength(1);
    expect(digests[0]!.parsed.subject).toBe('[agentdesk] 3 questions wait for you (2027-03-01)');
    const escalations = mailsTo(smtp, 'boss@example.org');
    expect(escalations).toHaveLength(3);
    expect(new Set(escalations.map((mail) => mail.parsed.subject))).toEqual(
      new Set([0, 1, 2].map((n) => `[agentdesk] Overdue: ada asks: Question ${n}`)),
    );
  });
});
