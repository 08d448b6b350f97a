import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { dumpDatabase } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { FAKE_ANSWER, type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { mail, newMessageId, waitFor } from '../support/mail.js';
import { SECRET_KEY } from '../support/intake.js';

// The intake worker end to end: a real IMAP server (dovecot), mail delivered with
// APPEND, the worker watching with IDLE, classification through the service's code path with
// the provider faked over HTTP, outcomes read back through the API.

const PASSWORD = 'flow-test-imap-password';
const NEWSLETTER = {
  ...FAKE_ANSWER,
  needs_action: false,
  category: 'newsletter',
  priority: 'low',
  task_description: null,
  details: { ...FAKE_ANSWER.details, suggested_title: null },
};
const FYI = { ...NEWSLETTER, category: 'fyi' };

const stores = await storesUnderTest();

describe('intake flow', () => {
  let dovecot: Dovecot;
  let fake: FakeLlm;
  beforeAll(async () => {
    dovecot = await startDovecot({ password: PASSWORD });
    fake = await startFakeLlm();
    // The fake answers by what the prompt holds, as a model would.
    fake.setAnswerer((prompt) =>
      /<email_subject>[^<]*newsletter/i.test(prompt)
        ? NEWSLETTER
        : /<email_body>\\nThanks, noted/i.test(prompt)
          ? FYI
          : null,
    );
  });
  afterAll(async () => {
    await dovecot?.close();
    await fake?.close();
  });

  describe.each(stores)('on %s', (kind) => {
    let t: TestApp;
    let mailboxId: string;
    const user = `flow-${kind}`;

    beforeAll(async () => {
      t = await startWorkApp(kind, {
        AGENTDESK_SECRET_KEY: SECRET_KEY,
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: fake.openaiBaseUrl,
        LLM_API_KEY: 'sk-fake-intake',
        LLM_TIMEOUT_MS: '3000',
        LLM_MAX_RETRIES: '0',
        // IDLE must do the work: the poll would come long after the test's deadlines.
        INTAKE_POLL_S: '300',
        INTAKE_RECONNECT_MAX_S: '1',
        // The test's dovecot listens on loopback, which a mailbox may use only when listed.
        INTAKE_ALLOWED_HOSTS: dovecot.host,
      });
      const project = await call(t.app, 'POST', '/projects', { name: `inbox ${kind}` });
      const created = await call(t.app, 'POST', '/mailboxes', {
        name: 'Support',
        kind: 'imap',
        host: dovecot.host,
        port: dovecot.port,
        tls: 'none',
        username: user,
        password: PASSWORD,
        project_id: project.body.id,
      });
      expect(created.status, created.text).toBe(201);
      mailboxId = created.body.id;
      await waitFor(
        'the mailbox to be idle',
        async () => (await call(t.app, 'GET', `/mailboxes/${mailboxId}`)).body.state === 'idle',
      );
    });
    afterAll(() => t?.close());

    const log = async () =>
      (await call(t.app, 'GET', `/mailboxes/${mailboxId}/messages`)).body as Array<Record<string, any>>;
    const logOf = (messageId: string) =>
      waitFor(`${messageId} in the intake log`, async () =>
        (await log()).find((entry) => entry.message_id === messageId),
      );

    it('new mail becomes a work item within 2 s of APPEND, and a reply in the thread a note on it', async () => {
      const messageId = newMessageId();
      const appended = Date.now();
      await dovecot.append(user, [
        mail({
          subject: 'Q3 budget needs your approval',
          text: 'Hi, can you approve the Q3 budget by Friday?',
          messageId,
          attachments: [{ name: 'q3-budget.xlsx', content: 'numbers' }],
        }),
      ]);
      const item = await waitFor(
        'the work item',
        async () =>
          (await call(t.app, 'GET', '/work?type=email_task')).body.find(
            (w: { payload: any }) => w.payload?.email?.message_id === messageId,
          ),
        5_000,
        20,
      );
      const latency = Date.now() - appended;
      console.info(`[intake] ${kind}: APPEND to work item in ${latency} ms`);
      expect(latency).toBeLessThan(2_000);
      const mailbox = (await call(t.app, 'GET', `/mailboxes/${mailboxId}`)).body;
      expect(item).toMatchObject({
        type: 'email_task',
        description: FAKE_ANSWER.task_description,
        priority: 1,
        status: 'queued',
        created_by: 'intake',
        project_id: mailbox.project_id,
      });
      expect(item.payload.email).toMatchObject({
        mailbox_id: mailboxId,
        subject: 'Q3 budget needs your approval',
        attachments: ['q3-budget.xlsx'],
        from: { address: 'dana@contoso.com' },
      });
      expect(item.payload.classification).toMatchObject({
        category: 'action_required',
        needs_action: true,
        dedupe: { status: 'new' },
      });
      // The classifier was given the attachment's name and the thread.
      const prompt = JSON.stringify(fake.requests.at(-1)?.body);
      expect(prompt).toContain('q3-budget.xlsx');
      expect(await logOf(messageId)).toMatchObject({
        status: 'done',
        action: 'created',
        category: 'action_required',
        work_item_id: item.id,
        work_item_url: `/work/${item.id}`,
      });

      const replyId = newMessageId();
      await dovecot.append(user, [
        mail({
          from: 'Dana Swope <dana@contoso.com>',
          subject: 'Re: Q3 budget needs your approval',
          text: 'Thanks, noted. One more line item for travel.\n\n> Hi, can you approve the Q3 budget by Friday?',
          messageId: replyId,
          inReplyTo: messageId,
          references: [messageId],
        }),
      ]);
      expect(await logOf(replyId)).toMatchObject({ action: 'noted', work_item_id: item.id, category: 'fyi' });
      const after = (await call(t.app, 'GET', `/work/${item.id}`)).body;
      // The follow-up is a comment of kind email by intake; notes stay the summary field.
      expect(after.notes).toBeNull();
      expect(after.comment_count).toBe(1);
      const [comment] = (await call(t.app, 'GET', `/work/${item.id}/comments`)).body;
      expect(comment).toMatchObject({ kind: 'email', author: 'intake', role: 'intake' });
      expect(comment.body).toMatch(
        /^Follow-up from Dana Swope <dana@contoso.com> at .* — Re: Q3 budget needs your approval:\nThanks, noted\. One more line item for travel\./,
      );
      expect(comment.body).not.toContain('> Hi');
      expect(after.payload.thread).toEqual([
        expect.objectContaining({ message_id: replyId, category: 'fyi', summary: expect.stringContaining('travel') }),
      ]);
      expect(after.status).toBe('queued');
      const items = (await call(t.app, 'GET', '/work?type=email_task')).body.filter(
        (w: any) => w.payload?.email?.conversation_id === messageId,
      );
      expect(items).toHaveLength(1);
    });

    it('a newsletter creates nothing; a broken message is logged failed and the next still flows', async () => {
      const newsletterId = newMessageId();
      const goodId = newMessageId();
      const before = (await call(t.app, 'GET', '/work?type=email_task')).body.length;
      await dovecot.append(user, [
        mail({
          from: 'news@digest.example.com',
          subject: 'Weekly newsletter digest',
          text: 'Top stories this week.',
          messageId: newsletterId,
          headers: { 'List-Unsubscribe': '<mailto:unsub@digest.example.com>' },
        }),
        Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x00, 0x0a, 0x0d, 0x00]),
        mail({
          subject: 'Please review the contract',
          text: 'Could you review the attached contract today?',
          messageId: goodId,
        }),
      ]);
      expect(await logOf(goodId)).toMatchObject({ action: 'created' });
      const entries = await log();
      expect(entries.find((entry) => entry.message_id === newsletterId)).toMatchObject({
        status: 'done',
        action: 'recorded',
        category: 'newsletter',
        work_item_id: null,
      });
      const failed = entries.find((entry) => entry.status === 'failed');
      expect(failed).toMatchObject({
        action: 'failed',
        category: null,
        work_item_id: null,
        error: expect.stringContaining('not a readable MIME message'),
      });
      expect((await call(t.app, 'GET', '/work?type=email_task')).body.length).toBe(before + 1);
      const failedOnly = (await call(t.app, 'GET', `/mailboxes/${mailboxId}/messages?status=failed`)).body;
      expect(failedOnly.map((entry: { id: string }) => entry.id)).toEqual([failed!.id]);
      // The sync goes idle a few writes after its last message is logged, and on SQLite each of
      // those writes waits for its flush off the event loop: a read may come between.
      const mailbox = await waitFor('the mailbox idle', async () => {
        const body = (await call(t.app, 'GET', `/mailboxes/${mailboxId}`)).body;
        return body.state === 'idle' ? body : undefined;
      });
      expect(mailbox.counts).toMatchObject({ failed: 1, items_created: 2, notes_added: 1 });
      expect(mailbox.counts.seen).toBe(entries.length);
      expect(mailbox.last_sync_at).not.toBeNull();
    });

    it('a provider failure is retried after a pause; a message it keeps failing on is recorded failed and the rest flows', async () => {
      const retried = newMessageId();
      fake.script({ kind: 'status', status: 500 }, { kind: 'status', status: 503 });
      await dovecot.append(user, [
        mail({
          subject: 'Renew the TLS certificate',
          text: 'Please renew the certificate before Monday.',
          messageId: retried,
        }),
      ]);
      await waitFor('the error state', async () =>
        /classification provider failed/.test(
          (await call(t.app, 'GET', `/mailboxes/${mailboxId}`)).body.last_error ?? '',
        ),
      );
      expect(await logOf(retried)).toMatchObject({ status: 'done', action: 'created' });

      const hopeless = newMessageId();
      const after = newMessageId();
      const asked = fake.requests.length;
      fake.setReplier((prompt) =>
        prompt.includes('<email_subject>Cannot be classified<') ? { kind: 'status', status: 500 } : null,
      );
      await dovecot.append(user, [
        mail({
          subject: 'Cannot be classified',
          text: 'The provider fails on this one every time.',
          messageId: hopeless,
        }),
        mail({ subject: 'Order more coffee', text: 'Please order more coffee for the office.', messageId: after }),
      ]);
      expect(await logOf(after)).toMatchObject({ action: 'created' });
      expect(await logOf(hopeless)).toMatchObject({
        status: 'failed',
        action: 'failed',
        error: expect.stringMatching(/^not classified after 3 tries: Classification failed/),
      });
      fake.setReplier(null);
      expect(
        fake.requests.slice(asked).filter((request) => JSON.stringify(request.body).includes('Cannot be classified')),
      ).toHaveLength(3);
      await waitFor(
        'the idle state',
        async () => (await call(t.app, 'GET', `/mailboxes/${mailboxId}`)).body.state === 'idle',
      );
    });

    it("intake's provider calls, failures included, are counted in the work service's /metrics (one ClassifyService, built by the root)", async () => {
      const metrics = await call(t.app, 'GET', '/metrics');
      expect(metrics.status).toBe(200);
      const count = (pattern: RegExp) =>
        metrics.text
          .split('\n')
          .filter((line) => pattern.test(line))
          .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
      expect(count(/^agentdesk_classify_provider_calls_total\{.*kind="ok"/)).toBeGreaterThan(0);
      expect(count(/^agentdesk_classify_fallbacks_total\{/)).toBeGreaterThan(0);
    });

    it('reconnects by itself after dovecot stops and starts again, and catches up', async () => {
      await dovecot.stop();
      const down = await waitFor('the error state', async () => {
        const mailbox = (await call(t.app, 'GET', `/mailboxes/${mailboxId}`)).body;
        return mailbox.state === 'error' ? mailbox : null;
      });
      expect(down.last_error).toMatch(/127\.0\.0\.1|connection/i);
      expect(down.last_error_at).not.toBeNull();
      // Mail that arrives while the watcher is cut off: dropped into the maildir as local
      // delivery does, then one APPENDed as soon as the server is back.
      const whileDown = newMessageId();
      dovecot.deliverLocally(
        user,
        mail({
          subject: 'Printer on floor 2 is jammed',
          text: 'Please fix the printer before the board meeting.',
          messageId: whileDown,
        }),
      );
      await dovecot.start();
      const caughtUp = newMessageId();
      await dovecot.append(user, [
        mail({
          subject: 'Server room door is broken',
          text: 'Please fix the server room door today.',
          messageId: caughtUp,
        }),
      ]);
      expect(await logOf(whileDown)).toMatchObject({ action: 'created' });
      expect(await logOf(caughtUp)).toMatchObject({ action: 'created' });
      await waitFor(
        'the idle state',
        async () => (await call(t.app, 'GET', `/mailboxes/${mailboxId}`)).body.state === 'idle',
      );
    });

    it('after all that, the IMAP password is nowhere in clear: not in the logs, the database or an answer', async () => {
      const answers = [
        await call(t.app, 'GET', '/mailboxes'),
        await call(t.app, 'GET', `/mailboxes/${mailboxId}`),
        await call(t.app, 'GET', `/mailboxes/${mailboxId}/messages`),
        await call(t.app, 'GET', '/work?limit=1000'),
        await call(t.app, 'GET', '/openapi.json'),
      ];
      const encodings = [
        PASSWORD,
        Buffer.from(PASSWORD).toString('base64'),
        Buffer.from(`\u0000${user}\u0000${PASSWORD}`).toString('base64'),
      ];
      const dump = await dumpDatabase(t.database);
      for (const secret of encodings) {
        for (const answer of answers) expect(answer.text).not.toContain(secret);
        expect(dump).not.toContain(secret);
        expect(t.logs.text()).not.toContain(secret);
      }
      expect(t.logs.text()).toContain('mailbox connected');
    });
  });
});
