import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkApp } from '../support/apps.js';
import { type StoreKind, storesUnderTest } from '../support/databases.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { createJumpingClock } from '../support/clock.js';
import { call } from '../support/http.js';
import type { NotifyScheduler } from '../../src/notify/index.js';
import { SECRET_KEY } from '../support/intake.js';
import { mail, newMessageId, waitFor } from '../support/mail.js';
import { type ReceivedMail, type TestSmtpServer, startSmtpServer } from '../support/smtp.js';

// The whole loop through real servers: an agent asks, the desk mails the person over SMTP (a
// real server on 127.0.0.1), the person's reply is appended to the intake mailbox in dovecot as
// a mail client writes it (quoted original, signature, a German client's quote line), intake
// reads it, and the agent waiting on the question gets the answer. Nothing is faked: the tokens
// are the desk's own, signed with the secret it keeps.

const PASSWORD = 'reply-loop-imap-password';
const stores = await storesUnderTest();
const AGENT = { 'x-user': 'ada' };

describe('replies by email', () => {
  let dovecot: Dovecot;
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    dovecot = await startDovecot({ password: PASSWORD });
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await dovecot?.close();
    await smtp?.close();
  });

  /** A desk on `kind` that mails through the test SMTP server and reads replies from `mailbox`. */
  async function startDesk(kind: StoreKind, mailbox: string, options: Parameters<typeof startWorkApp>[2] = {}) {
    const t = await startWorkApp(
      kind,
      {
        AGENTDESK_SECRET_KEY: SECRET_KEY,
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        MAIL_FROM: 'Agent Desk <desk@example.org>',
        PUBLIC_URL: 'http://desk.example.org',
        INTAKE_REPLY_ADDRESS: 'desk+{token}@example.org',
        INTAKE_POLL_S: '300',
        INTAKE_RECONNECT_MAX_S: '1',
        INTAKE_ALLOWED_HOSTS: dovecot.host,
      },
      options,
    );
    for (const [name, email] of [
      ['mia', 'mia@example.org'],
      ['eve', 'eve@example.org'],
    ] as const) {
      const put = await call(t.app, 'PUT', `/people/${name}`, { email, notify: 'immediate' }, { 'x-user': name });
      expect(put.status, put.text).toBe(201);
    }
    const created = await call(t.app, 'POST', '/mailboxes', {
      name: 'Desk replies',
      kind: 'imap',
      host: dovecot.host,
      port: dovecot.port,
      tls: 'none',
      username: mailbox,
      password: PASSWORD,
    });
    expect(created.status, created.text).toBe(201);
    await waitFor(
      'the mailbox to be idle',
      async () => (await call(t.app, 'GET', `/mailboxes/${created.body.id}`)).body.state === 'idle',
    );

    /** An item watched by mia, claimed by ada. */
    async function claimedItem(extra: Record<string, unknown> = {}): Promise<string> {
      const type = `reply-${Math.random().toString(36).slice(2, 8)}`;
      const item = await call(t.app, 'POST', '/work', {
        type,
        description: 'Renew the TLS certificate',
        watchers: ['mia'],
        ...extra,
      });
      expect(item.status, item.text).toBe(201);
      const claim = await call(t.app, 'POST', '/work/claim', { agent: 'ada', types: [type] }, AGENT);
      expect(claim.status, claim.text).toBe(200);
      return item.body.id as string;
    }

    /** Asks as ada; answers the question and the mail the desk sent mia about it. */
    async function ask(item: string, body: Record<string, unknown>) {
      const asked = await call(t.app, 'POST', `/work/${item}/questions`, body, AGENT);
      expect(asked.status, asked.text).toBe(201);
      const sent = await waitFor('the mail to mia', async () =>
        smtp.received.find(
          (received) => received.parsed.text?.includes(item) && received.to.includes('mia@example.org'),
        ),
      );
      return { question: asked.body.id as string, sent };
    }

    const questionNow = async (item: string, question: string, waitS = 0) =>
      (await call(t.app, 'GET', `/work/${item}/questions/${question}?wait_s=${waitS}`, undefined, AGENT)).body;
    const comments = async (item: string) =>
      (await call(t.app, 'GET', `/work/${item}/comments?limit=100`)).body as Array<{ kind: string; body: string }>;
    /** Resolves once a comment on the item says this. */
    const noted = (item: string, says: string) =>
      waitFor(`a comment saying ${says}`, async () =>
        (await comments(item)).some((comment) => comment.body.includes(says)),
      );
    /** Messages the mailbox has taken in so far. */
    const seen = async () => (await call(t.app, 'GET', `/mailboxes/${created.body.id}`)).body.counts.seen as number;
    return { t, claimedItem, ask, questionNow, comments, noted, seen };
  }

  /** mia's reply as her mail client writes it: her text on top, then the quoted original. */
  function replyTo(sent: ReceivedMail, text: string, from = 'Mia Muster <mia@example.org>'): string {
    const replyAddress = sent.parsed.replyTo!.value[0]!.address!;
    const quoted = (sent.parsed.text ?? '')
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n');
    return mail({
      from,
      to: replyAddress,
      subject: `Re: ${sent.parsed.subject}`,
      messageId: newMessageId(),
      inReplyTo: sent.parsed.messageId!,
      references: [sent.parsed.messageId!],
      text: `${text}\n\nAm 6. Dez. 2026 um 10:02 schrieb Agent Desk <desk@example.org>:\n${quoted}\n`,
    });
  }

  describe.each(stores)('on %s', (kind) => {
    const mailbox = `desk-${kind}`;
    let desk: Awaited<ReturnType<typeof startDesk>>;
    beforeAll(async () => {
      desk = await startDesk(kind, mailbox);
    });
    afterAll(() => desk?.t.close());

    it('an option chosen by reply answers the agent waiting on it', async () => {
      const item = await desk.claimedItem();
      const { question, sent } = await desk.ask(item, {
        question: 'Which CA should issue it?',
        options: ["Let's Encrypt", 'DigiCert'],
      });
      expect(sent.parsed.subject).toBe('[agentdesk] ada asks: Which CA should issue it?');
      expect(sent.parsed.replyTo!.value[0]!.address).toMatch(/^desk\+[a-z0-9]+-[a-z0-9]+@example\.org$/);
      expect(sent.parsed.messageId).toMatch(new RegExp(`^<q\\.${question}\\.[0-9a-f-]+@example\\.org>$`));
      expect(sent.parsed.text).toContain('http://desk.example.org/answer/');

      const waiting = desk.questionNow(item, question, 30);
      await dovecot.append(mailbox, [replyTo(sent, 'digicert, please\n\n-- \nMia Muster\nOps')]);
      expect(await waiting).toMatchObject({
        status: 'answered',
        option: 'DigiCert',
        answer: 'please',
        answered_by: 'mia',
        via: 'email',
      });
      expect((await call(desk.t.app, 'GET', `/work/${item}`)).body.status).toBe('in_progress');
    });

    it('a free answer is the first paragraph of the reply, without the quote and signature', async () => {
      const item = await desk.claimedItem();
      const { question, sent } = await desk.ask(item, { question: 'Which hostnames go on it?' });
      const waiting = desk.questionNow(item, question, 30);
      await dovecot.append(mailbox, [replyTo(sent, 'desk.example.org and api.example.org\n\nThanks!\n\n-- \nMia')]);
      expect(await waiting).toMatchObject({
        status: 'answered',
        answer: 'desk.example.org and api.example.org',
        answered_by: 'mia',
        via: 'email',
      });
    });

    it('a review approved by reply completes the item', async () => {
      const item = await desk.claimedItem({ review_required: true });
      const patched = await call(
        desk.t.app,
        'PATCH',
        `/work/${item}`,
        { status: 'completed', outcome: 'success' },
        AGENT,
      );
      expect(patched.status, patched.text).toBeLessThan(300);
      const [review] = (await call(desk.t.app, 'GET', `/work/${item}/questions`, undefined, AGENT)).body;
      expect(review).toMatchObject({ kind: 'review', status: 'open' });
      const sent = await waitFor('the review mail', async () =>
        smtp.received.find((received) => received.parsed.messageId?.startsWith(`<q.${review.id}.`)),
      );
      await dovecot.append(mailbox, [replyTo(sent, 'Approved, thanks.')]);
      await waitFor(
        'the item completed',
        async () => (await call(desk.t.app, 'GET', `/work/${item}`)).body.status === 'completed',
      );
      expect(await desk.questionNow(item, review.id)).toMatchObject({
        option: 'approve',
        answered_by: 'mia',
        via: 'email',
      });
    });

    it('a forged sender, another person, a replay and a quote-only reply answer nothing and leave a comment', async () => {
      const item = await desk.claimedItem();
      const { question, sent } = await desk.ask(item, {
        question: 'Renew now or next week?',
        options: ['now', 'next week'],
      });
      // Someone else writing to mia's reply address; eve, who has a profile, is not mia either.
      await dovecot.append(mailbox, [
        replyTo(sent, 'now', 'Mallory <mallory@evil.example>'),
        replyTo(sent, 'now', 'Eve <eve@example.org>'),
        replyTo(sent, ''),
      ]);
      await waitFor('three comments on the item', async () =>
        (await desk.comments(item)).filter((comment) => comment.body.includes('not taken as an answer')).length === 3
          ? true
          : null,
      );
      const notes = (await desk.comments(item)).filter((comment) => comment.body.includes('not taken as an answer'));
      expect(
        notes.filter((note) => note.body.startsWith('Unverified reply by email from mallory@evil.example')),
      ).toHaveLength(1);
      expect(
        notes.filter((note) => note.body.startsWith('Unverified reply by email from eve@example.org')),
      ).toHaveLength(1);
      expect(notes.filter((note) => note.body.includes('only the quoted mail'))).toHaveLength(1);
      expect(await desk.questionNow(item, question)).toMatchObject({ status: 'open', answered_by: null });

      // mia's own answer goes through; the same reply sent again is a replay of an answered question.
      const answer = replyTo(sent, 'next week');
      await dovecot.append(mailbox, [answer]);
      await waitFor('the answer', async () => (await desk.questionNow(item, question)).status === 'answered');
      await dovecot.append(mailbox, [answer.replace(/^Message-ID: .*$/m, `Message-ID: ${newMessageId()}`)]);
      await waitFor('the replay noted', async () =>
        (await desk.comments(item)).some((comment) => comment.body.includes('the question was already answered')),
      );
      expect(await desk.questionNow(item, question)).toMatchObject({ option: 'next week', answered_by: 'mia' });
    });
  });
  // The clock jumps: a reply to a mail older than ANSWER_LINK_TTL, and one to a question whose
  // item ended meanwhile, answer nothing and say why.
  describe.each(stores)('later, on %s', (kind) => {
    const mailbox = `desk-later-${kind}`;
    const clock = createJumpingClock();
    let desk: Awaited<ReturnType<typeof startDesk>>;
    beforeAll(async () => {
      desk = await startDesk(kind, mailbox, { now: clock.now, sweepEveryMs: 60 * 60 * 1000 });
    });
    afterAll(() => desk?.t.close());

    it('a reply past the link lifetime answers nothing', async () => {
      const item = await desk.claimedItem();
      const { question, sent } = await desk.ask(item, { question: 'Renew for one year or two?' });
      clock.advance(8 * 24 * 60 * 60 * 1000);
      await dovecot.append(mailbox, [replyTo(sent, 'Two years.')]);
      await desk.noted(item, 'older than the answer links last');
      expect(await desk.questionNow(item, question)).toMatchObject({ status: 'open', answered_by: null });
    });

    it('a reply to a question whose item failed meanwhile answers nothing', async () => {
      const item = await desk.claimedItem();
      const { question, sent } = await desk.ask(item, { question: 'Which team owns it?' });
      const failed = await call(desk.t.app, 'PATCH', `/work/${item}`, { status: 'failed', outcome: 'failed' });
      expect(failed.status, failed.text).toBe(200);
      await dovecot.append(mailbox, [replyTo(sent, 'Platform.')]);
      await desk.noted(item, 'the question was closed');
      expect(await desk.questionNow(item, question)).toMatchObject({ status: 'moot', answered_by: null });
    });
  });

  // Mail the scheduler writes: an escalation is the question's mail, so a reply to it answers as
  // the person it went to; a digest names no single question, so a reply to it answers nothing.
  describe.each(stores)('escalations and digests, on %s', (kind) => {
    const mailbox = `desk-scheduled-${kind}`;
    const clock = createJumpingClock();
    let desk: Awaited<ReturnType<typeof startDesk>>;
    let scheduler: NotifyScheduler | undefined;
    beforeAll(async () => {
      desk = await startDesk(kind, mailbox, {
        now: clock.now,
        sweepEveryMs: 60 * 60 * 1000,
        notify: { scheduler: { everyMs: 60 * 60 * 1000 } },
        onNotifyScheduler: (started) => (scheduler = started),
      });
    });
    afterAll(() => desk?.t.close());

    it('a reply to an escalation answers as the person it was sent to', async () => {
      const project = await call(desk.t.app, 'POST', '/projects', {
        name: `escalating-${kind}`,
        answer_within_s: 60,
        escalate_to: ['eve'],
      });
      expect(project.status, project.text).toBe(201);
      const item = await desk.claimedItem({ project_id: project.body.id });
      const { question } = await desk.ask(item, { question: 'Ship the hotfix tonight?', options: ['yes', 'no'] });
      clock.advance(2 * 60 * 1000);
      expect((await scheduler!.runOnce()).escalations).toBe(1);
      const escalation = await waitFor('the escalation to eve', async () =>
        smtp.received.find(
          (received) =>
            received.to.includes('eve@example.org') &&
            received.parsed.subject?.includes('Overdue') &&
            received.parsed.text?.includes(item),
        ),
      );
      const waiting = desk.questionNow(item, question, 30);
      await dovecot.append(mailbox, [replyTo(escalation, 'no', 'Eve <eve@example.org>')]);
      expect(await waiting).toMatchObject({ status: 'answered', option: 'no', answered_by: 'eve', via: 'email' });
    });

    it('a reply to a digest is read as new mail and answers no question', async () => {
      const put = await call(
        desk.t.app,
        'PUT',
        '/people/dora',
        { email: 'dora@example.org', notify: 'digest', digest_at: '00:00', tz: 'UTC' },
        { 'x-user': 'dora' },
      );
      expect(put.status, put.text).toBe(201);
      const item = await desk.claimedItem({ watchers: ['dora'] });
      const asked = await call(desk.t.app, 'POST', `/work/${item}/questions`, { question: 'Which region?' }, AGENT);
      expect(asked.status, asked.text).toBe(201);
      expect((await scheduler!.runOnce()).digests).toBeGreaterThanOrEqual(1);
      const digest = await waitFor('the digest to dora', async () =>
        smtp.received.find((received) => received.to.includes('dora@example.org')),
      );
      expect(digest.parsed.replyTo).toBeUndefined();
      const before = await desk.seen();
      await dovecot.append(mailbox, [
        mail({
          from: 'Dora <dora@example.org>',
          to: 'desk@example.org',
          subject: `Re: ${digest.parsed.subject}`,
          messageId: newMessageId(),
          inReplyTo: digest.parsed.messageId!,
          references: [digest.parsed.messageId!],
          text: 'eu-west-1\n',
        }),
      ]);
      await waitFor('the reply taken in', async () => ((await desk.seen()) > before ? true : null));
      expect(await desk.questionNow(item, asked.body.id)).toMatchObject({ status: 'open', answered_by: null });
      expect((await desk.comments(item)).filter((comment) => comment.body.includes('by email'))).toEqual([]);
    });
  });
});
