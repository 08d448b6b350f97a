import { buildWorkApp } from '../../src/services/work.js';
import type { NotifyScheduler, OutboxSender } from '../../src/notify/index.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { captureLogs, testConfig } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import type { TestClock } from '../support/clock.js';
import { type TestDatabase, openTestDatabase } from '../support/databases.js';
import { call } from '../support/http.js';
import type { TestSmtpServer } from '../support/smtp.js';
import { NO_TIMER_MS, SMTP_PASSWORD, TEST_TOKENS } from './outbox-support.js';

// What the digest and escalation tests share: a work app on a given database whose mail goes to
// a test SMTP server, whose sender and scheduler run only when the test says (at its clock).

export interface ScheduleApp {
  app: HttpApp;
  sender: OutboxSender;
  scheduler: NotifyScheduler;
  close(): Promise<void>;
}

export async function startScheduleApp(
  testDatabase: TestDatabase,
  smtp: TestSmtpServer,
  clock: TestClock,
): Promise<ScheduleApp> {
  let sender: OutboxSender | undefined;
  let scheduler: NotifyScheduler | undefined;
  const database = await openTestDatabase(testDatabase);
  const config = testConfig(testDatabase, {
    ...AUTH_ENV,
    SMTP_URL: `smtp://desk:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
    MAIL_FROM: 'Agent Desk <desk@example.org>',
    PUBLIC_URL: 'http://desk.example.org/',
    INTAKE_REPLY_ADDRESS: 'desk+{token}@example.org',
  });
  const app = await buildWorkApp({
    config,
    database,
    logger: captureLogs('info').logger,
    now: clock.now,
    sweepEveryMs: NO_TIMER_MS,
    notify: { tokens: TEST_TOKENS, sender: { pollMs: NO_TIMER_MS }, scheduler: { everyMs: NO_TIMER_MS } },
    onNotifySender: (started) => (sender = started),
    onNotifyScheduler: (started) => (scheduler = started),
  });
  await app.ready();
  if (!sender || !scheduler) throw new Error('the sender and the scheduler did not start');
  return {
    app,
    sender,
    scheduler,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

export const admin = bearer(ADMIN_SECRET);

export async function putPerson(app: HttpApp, name: string, profile: Record<string, unknown>): Promise<void> {
  const put = await call(app, 'PUT', `/people/${name}`, profile, admin);
  if (put.status !== 201 && put.status !== 200) throw new Error(put.text);
}

/** The asking agent's headers (ada). */
export async function agentAda(app: HttpApp): Promise<Record<string, string>> {
  return bearer((await mintToken(app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token);
}

/** A fresh item claimed by ada, with its question asked; the question's id. */
export async function askOn(
  app: HttpApp,
  ada: Record<string, string>,
  item: Record<string, unknown>,
  question: Record<string, unknown>,
): Promise<{ item: string; question: string }> {
  const type = `sched-${Math.random().toString(36).slice(2, 8)}`;
  const submitted = await call(app, 'POST', '/work', { type, description: 'an item', ...item }, admin);
  if (submitted.status !== 201) throw new Error(submitted.text);
  const claim = await call(app, 'POST', '/work/claim', { types: [type], lease_s: 300 }, ada);
  if (claim.status !== 200) throw new Error(claim.text);
  const id = submitted.body.id as string;
  const asked = await call(app, 'POST', `/work/${id}/questions`, question, ada);
  if (asked.status !== 201) throw new Error(asked.text);
  return { item: id, question: asked.body.id as string };
}

/** The mails the server received for `address` so far. */
export function mailsTo(smtp: TestSmtpServer, address: string) {
  return smtp.received.filter((mail) => mail.to.includes(address));
}
