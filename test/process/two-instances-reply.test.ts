import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { SECRET_KEY } from '../support/intake.js';
import { mail, newMessageId, waitFor } from '../support/mail.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { type ReceivedMail, type TestSmtpServer, startSmtpServer } from '../support/smtp.js';
import { openForAudit, send } from './agent-loop-audit.js';

// Two work-service processes on one PostgreSQL: an agent asks on A and waits there; A does not
// watch mailboxes (INTAKE_WORKER=false), so the person's reply, appended to the intake mailbox in
// dovecot, is read by B's intake, which answers the question; A's waiter hears it through the
// database (LISTEN/NOTIFY). The reply token A signed is checked by B: the secret is shared.

const hasPostgres = (await storesUnderTest()).includes('postgres');
const PASSWORD = 'two-instances-imap-password';
const MAILBOX = 'desk-pair';

describe.skipIf(!hasPostgres)('a reply taken by the other instance', () => {
  let database: TestDatabase;
  let audit: Database;
  let dovecot: Dovecot;
  let smtp: TestSmtpServer;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    [database, dovecot, smtp] = await Promise.all([
      createTestDatabase('postgres'),
      startDovecot({ password: PASSWORD }),
      startSmtpServer(),
    ]);
    audit = await openForAudit(database);
    const env = {
      DATABASE_URL: database.config.url,
      DATABASE_POOL_SIZE: '5',
      LOG_LEVEL: 'warn',
      AGENTDESK_SECRET_KEY: SECRET_KEY,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'Agent Desk <desk@example.org>',
      PUBLIC_URL: 'http://desk.example.org',
      INTAKE_REPLY_ADDRESS: 'desk+{token}@example.org',
      INTAKE_POLL_S: '300',
      INTAKE_RECONNECT_MAX_S: '1',
      INTAKE_ALLOWED_HOSTS: dovecot.host,
    };
    // A first, so the link secret it makes on first start is the one B reads.
    a = await startWorkServer({ env: { ...env, INTAKE_WORKER: 'false' }, startTimeoutMs: 60_000 });
    b = await startWorkServer({ env: { ...env, INTAKE_WORKER: 'true' }, startTimeoutMs: 60_000 });
  }, 120_000);
  afterAll(async () => {
    await killAllServers();
    await audit?.close();
    await database?.destroy();
    await dovecot?.close();
    await smtp?.close();
  });

  /** mia's reply as her mail client writes it: her text on top, then the quoted original. */
  function replyTo(sent: ReceivedMail, text: string): string {
    const quoted = (sent.parsed.text ?? '')
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n');
    return mail({
      from: 'Mia Muster <mia@example.org>',
      to: sent.parsed.replyTo!.value[0]!.address!,
      subject: `Re: ${sent.parsed.subject}`,
      messageId: newMessageId(),
      inReplyTo: sent.parsed.messageId!,
      references: [sent.parsed.messageId!],
      text: `${text}\n\nOn Sun, Dec 6, 2026 at 10:02 AM Agent Desk <desk@example.org> wrote:\n${quoted}\n`,
    });
  }

  it('the agent waiting on A gets the answer B read from the mailbox', { timeout: 120_000 }, async () => {
    const person = await send(
      a.url,
      'PUT',
      '/people/mia',
      { email: 'mia@example.org', notify: 'immediate' },
      {
        'x-user': 'mia',
      },
    );
    expect(person.status, JSON.stringify(person.body)).toBe(201);
    // Made on A; only B watches mailboxes, so B takes its lease.
    const created = await send(a.url, 'POST', '/mailboxes', {
      name: 'Desk replies',
      kind: 'imap',
      host: dovecot.host,
      port: dovecot.port,
      tls: 'none',
      username: MAILBOX,
      password: PASSWORD,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await waitFor(
      'the mailbox watched',
      async () => (await send(a.url, 'GET', `/mailboxes/${created.body.id}`)).body.state === 'idle',
      30_000,
    );

    const item = await send(a.url, 'POST', '/work', {
      type: 'pair-reply',
      description: 'Renew the TLS certificate',
      watchers: ['mia'],
    });
    expect(item.status, JSON.stringify(item.body)).toBe(201);
    const agent = { 'x-user': 'ada' };
    const claimed = await send(a.url, 'POST', '/work/claim', { agent: 'ada', types: ['pair-reply'] }, agent);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    const asked = await send(
      a.url,
      'POST',
      `/work/${item.body.id}/questions`,
      { question: 'Which CA should issue it?', options: ["Let's Encrypt", 'DigiCert'] },
      agent,
    );
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const question = asked.body.id as string;
    const sent = await smtp.next();
    expect(sent.to).toEqual(['mia@example.org']);
    expect(sent.parsed.messageId).toMatch(new RegExp(`^<q\\.${question}\\.`));

    // The agent waits on A; B's intake reads the reply and answers.
    const waiting = send(
      a.url,
      'GET',
      `/work/${item.body.id}/questions/${question}?wait_s=30`,
      undefined,
      agent,
      90_000,
    );
    await dovecot.append(MAILBOX, [replyTo(sent, 'DigiCert, please\n\n-- \nMia Muster\nOps')]);
    const answered = await waiting;
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    expect(answered.body).toMatchObject({
      status: 'answered',
      option: 'DigiCert',
      answered_by: 'mia',
      via: 'email',
    });
    expect((await send(a.url, 'GET', `/work/${item.body.id}`)).body.status).toBe('in_progress');
    const onB = await send(b.url, 'GET', `/work/${item.body.id}/questions/${question}`, undefined, agent);
    expect(onB.body).toMatchObject({ status: 'answered', via: 'email' });

    // The mailbox is leased, and only B watches mailboxes.
    const lease = await audit.kysely
      .selectFrom('intake_mailboxes')
      .select(['lease_owner'])
      .where('id', '=', created.body.id as string)
      .executeTakeFirstOrThrow();
    expect(lease.lease_owner).not.toBeNull();
  });
});
