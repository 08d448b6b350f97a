import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { waitFor } from '../support/mail.js';
import { killAllServers, startWorkServer } from '../support/processes.js';
import { type SilentServer, type TestSmtpServer, startSilentServer, startSmtpServer } from '../support/smtp.js';

// kill -9 between the commit of a question and its send, made deterministic: the first process
// mails through a server that takes the connection and never greets, so the sender holds the row
// mid-send when the test kills it. Started again against a real SMTP server, the process sends
// the mail once, with the Message-ID the commit wrote; a short NOTIFY_LEASE_S lets it go soon.

const stores = await storesUnderTest();

describe.each(stores)('kill -9 between a question and its mail on %s', (kind) => {
  let database: TestDatabase | undefined;
  let silent: SilentServer | undefined;
  let smtp: TestSmtpServer | undefined;
  afterAll(async () => {
    await killAllServers();
    await silent?.close();
    await smtp?.close();
    await database?.destroy();
  });

  it('the mail goes once after the restart, with the Message-ID written in the commit', async () => {
    database = await createTestDatabase(kind);
    silent = await startSilentServer();
    const env = (smtpPort: number) => ({
      DATABASE_URL: database!.config.url,
      LOG_LEVEL: 'warn',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_FROM: 'Agent Desk <desk@example.org>',
      PUBLIC_URL: 'http://desk.example.org',
      NOTIFY_LEASE_S: '1',
    });
    const first = await startWorkServer({ env: env(silent.port), startTimeoutMs: 60_000 });
    const person = await fetchJson(first.url, 'PUT', '/people/mia', { email: 'mia@example.org', notify: 'immediate' });
    expect(person.status, JSON.stringify(person.body)).toBe(201);
    const item = await fetchJson(first.url, 'POST', '/work', {
      type: 'asks',
      description: 'pick a region',
      watchers: ['mia'],
    });
    expect(item.status, JSON.stringify(item.body)).toBe(201);
    const claimed = await fetchJson(first.url, 'POST', '/work/claim', { agent: 'runner', types: ['asks'] });
    expect(claimed.body).toMatchObject({ id: item.body.id });
    const asked = await fetchJson(first.url, 'POST', `/work/${item.body.id}/questions`, {
      question: 'Which region?',
      options: ['eu-west', 'us-east'],
    });
    // 201: the question and its mail's row are committed.
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);

    // The sender has leased the row and waits for a greeting that never comes: kill it there.
    await silent.connected();
    const before = await fetchJson(first.url, 'GET', `/work/${item.body.id}/notifications`);
    expect(before.body).toMatchObject([{ person: 'mia', status: 'pending', attempts: 0, sent_at: null }]);
    const messageId = before.body[0].message_id as string;
    expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });

    smtp = await startSmtpServer();
    const second = await startWorkServer({ env: env(smtp.port), startTimeoutMs: 60_000 });
    // The restart's first pass takes the row once the dead sender's lease has run out; the poll
    // (15 s) takes it if the restart came sooner.
    const mail = await smtp.next();
    expect(mail.to).toEqual(['mia@example.org']);
    expect(mail.parsed.messageId).toBe(messageId);
    expect(mail.parsed.subject).toContain('Which region?');
    const sent = await waitFor(
      'the row recorded as sent',
      async () => {
        const rows = (await fetchJson(second.url, 'GET', `/work/${item.body.id}/notifications`)).body;
        return rows[0]?.status === 'sent' ? rows[0] : null;
      },
      30_000,
    );
    // The killed attempt never recorded itself: one attempt, the one that sent.
    expect(sent).toMatchObject({ message_id: messageId, attempts: 1, next_attempt_at: null });
    // Sent is final: nothing more can go, and the server got this mail exactly once.
    expect(smtp.received.map((received) => received.parsed.messageId)).toEqual([messageId]);
    await second.stop();
  }, 120_000);
});
