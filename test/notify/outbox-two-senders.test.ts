import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxStatementsFor } from '../../src/notify/outbox/store/index.js';
import { startOutboxSender } from '../../src/notify/outbox/sender.js';
import { createSmtpTransport } from '../../src/notify/outbox/transport.js';
import { randomId } from '../../src/shared/db/ids.js';
import type { Database } from '../../src/shared/db/database.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { captureLogs } from '../support/apps.js';
import { createTestClock } from '../support/clock.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';
import { type TestSmtpServer, startSmtpServer } from '../support/smtp.js';

// Two instances on one PostgreSQL, each with its own sender and connections, passing over the
// same outbox at once: the lease (FOR UPDATE SKIP LOCKED, then claimed_until) sends every row once.

const stores = await storesUnderTest();

describe.skipIf(!stores.includes('postgres'))('two senders on one PostgreSQL', () => {
  let testDatabase: TestDatabase;
  let databases: Database[] = [];
  let smtp: TestSmtpServer;
  const clock = createTestClock();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    testDatabase = await createTestDatabase('postgres');
    databases = [await openTestDatabase(testDatabase), await openTestDatabase(testDatabase)];
  });
  afterAll(async () => {
    for (const database of databases) await database.close();
    await testDatabase?.destroy();
    await smtp?.close();
  });

  it('sends each of 30 rows exactly once', async () => {
    const outbox = outboxStatementsFor('postgres');
    const at = clock.now().toISOString();
    const ids: string[] = [];
    for (let n = 0; n < 30; n += 1) {
      const id = randomId();
      ids.push(id);
      await outbox(databases[0]!.kysely).insert({
        id,
        kind: 'test',
        person: `p${n}`,
        address: `p${n}@example.org`,
        work_item_id: null,
        question_id: null,
        message_id: `<t.${id}@example.org>`,
        subject: `test ${n}`,
        text_body: 'hello',
        html_body: '<p>hello</p>',
        headers: '{}',
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        claimed_until: null,
        last_error: null,
        created_at: at,
        sent_at: null,
      });
    }
    const { mail } = loadConfig({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'desk@example.org' });
    const senders = databases.map((database) =>
      startOutboxSender({
        outbox: outbox(database.kysely),
        transport: createSmtpTransport(mail.smtp!, mail.from!),
        // These rows name no question; nothing asks.
        questionStatus: () => Promise.reject(new Error('no question to look up')),
        now: clock.now,
        logger: captureLogs('warn').logger,
        pollMs: 60 * 60 * 1000,
        batch: 4,
      }),
    );
    // Each sender's first pass starts with it; these passes run after those and find what is left.
    await Promise.all([...senders, ...senders].map((sender) => sender.runOnce()));
    for (const sender of senders) await sender.stop();
    const messageIds = smtp.received.map((received) => received.parsed.messageId);
    expect(messageIds).toHaveLength(30);
    expect(new Set(messageIds)).toEqual(new Set(ids.map((id) => `<t.${id}@example.org>`)));
    const rows = await databases[1]!.kysely.selectFrom('notifications').select(['status', 'attempts']).execute();
    expect(rows.every((row) => row.status === 'sent' && row.attempts === 1)).toBe(true);
  });
});
