import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { FAKE_ANSWER, type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { SECRET_KEY } from '../support/intake.js';
import { mail, newMessageId, waitFor } from '../support/mail.js';

// Mail that decodes to U+0000 (an encoded word, a quoted-printable body, a
// From name, a raw NUL in the Message-ID) or to a lone surrogate used to stop its mailbox for
// good on PostgreSQL and was stored as is on SQLite. Text from mail is cleaned where it enters;
// a message the database still refuses is recorded as failed, and the mailbox goes on. Over
// IMAP (a real dovecot) and by import, on both stores.

const PASSWORD = 'nul-test-imap-password';
const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function raw(headers: string[], body: string, extra: string[] = []): Buffer {
  return Buffer.from(
    [
      'From: Dana Swope <dana@contoso.com>',
      'To: support@example.com',
      'Date: Tue, 10 Jun 2025 09:00:00 +0000',
      ...headers,
      'MIME-Version: 1.0',
      ...extra,
      '',
      body,
      '',
    ].join('\r\n'),
    'latin1',
  );
}

/** The variants of the issue, each with the Message-ID it is logged under. */
function variants(tag: string) {
  const id = (name: string) => `<${name}-${tag}-${randomBytes(4).toString('hex')}@example.com>`;
  const subjectId = id('subject');
  const bodyId = id('body');
  const fromId = id('from');
  const surrogateId = id('surrogate');
  const nulId = id('raw-nul');
  return {
    subject: {
      id: subjectId,
      raw: raw(
        ['Subject: =?utf-8?q?Please_pay_invoice_42=00_by_Friday?=', `Message-ID: ${subjectId}`],
        'Please pay it.',
        ['Content-Type: text/plain; charset=utf-8'],
      ),
    },
    body: {
      id: bodyId,
      raw: raw(['Subject: Quoted-printable body', `Message-ID: ${bodyId}`], 'Please pay=00 the invoice=00 by Friday.', [
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
      ]),
    },
    from: {
      id: fromId,
      raw: Buffer.from(
        raw(['Subject: From a name with a NUL', `Message-ID: ${fromId}`], 'Please call me.', [
          'Content-Type: text/plain; charset=utf-8',
        ])
          .toString('latin1')
          .replace('From: Dana Swope <dana@contoso.com>', 'From: =?utf-8?q?Al=00ice?= <alice@example.com>'),
        'latin1',
      ),
    },
    // UTF-16 allows what UTF-8 cannot: a high surrogate with nothing after it.
    surrogate: {
      id: surrogateId,
      raw: raw(
        [
          `Subject: =?utf-16be?b?${Buffer.from([0, 0x4f, 0, 0x4b, 0xd8, 0x3d, 0, 0x21]).toString('base64')}?=`,
          `Message-ID: ${surrogateId}`,
        ],
        'Please look.',
        ['Content-Type: text/plain; charset=utf-8'],
      ),
    },
    // The NUL as a byte on the wire: logged under the Message-ID without it.
    rawNul: {
      id: nulId,
      raw: raw(['Subject: A NUL in the Message-ID', `Message-ID: ${nulId.replace('@', `${NUL}@`)}`], 'Please check.', [
        'Content-Type: text/plain; charset=utf-8',
      ]),
    },
  };
}

const stores = await storesUnderTest();

describe('mail text no store can keep', () => {
  let dovecot: Dovecot;
  let fake: FakeLlm;
  beforeAll(async () => {
    dovecot = await startDovecot({ password: PASSWORD });
    fake = await startFakeLlm();
  });
  afterAll(async () => {
    await dovecot?.close();
    await fake?.close();
  });

  describe.each(stores)('on %s', (kind) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startWorkApp(kind, {
        AGENTDESK_SECRET_KEY: SECRET_KEY,
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: fake.openaiBaseUrl,
        LLM_API_KEY: 'sk-fake-intake',
        LLM_MAX_RETRIES: '0',
        INTAKE_POLL_S: '300',
        INTAKE_RECONNECT_MAX_S: '1',
        INTAKE_ALLOWED_HOSTS: dovecot.host,
      });
    });
    afterAll(() => t?.close());

    async function connect(user: string, extra: Record<string, unknown> = {}): Promise<string> {
      const created = await call(t.app, 'POST', '/mailboxes', {
        name: 'NUL',
        kind: 'imap',
        host: dovecot.host,
        port: dovecot.port,
        tls: 'none',
        username: user,
        password: PASSWORD,
        ...extra,
      });
      expect(created.status, created.text).toBe(201);
      return created.body.id;
    }
    const mailbox = async (id: string) => (await call(t.app, 'GET', `/mailboxes/${id}`)).body;
    const logged = async (id: string) =>
      (await call(t.app, 'GET', `/mailboxes/${id}/messages?limit=500`)).body as Array<Record<string, any>>;
    const logOf = (id: string, messageId: string) =>
      waitFor(`${messageId} in the log`, async () =>
        (await logged(id)).find((entry) => entry.message_id === messageId),
      );
    const itemOf = async (entry: Record<string, any>) => (await call(t.app, 'GET', `/work/${entry.work_item_id}`)).body;

    /** Every variant logged and cleaned, its work item too, and the mail behind them taken in. */
    async function expectCleaned(
      id: string,
      all: ReturnType<typeof variants>,
      after: string,
      viaImport: boolean,
    ): Promise<void> {
      expect(
        await logOf(id, after),
        `the message after the variants; mailbox: ${JSON.stringify(await mailbox(id))}`,
      ).toMatchObject({ status: 'done', action: 'created' });
      const subject = await logOf(id, all.subject.id);
      expect(subject).toMatchObject({ status: 'done', action: 'created', subject: 'Please pay invoice 42 by Friday' });
      expect((await itemOf(subject)).payload.email.subject).toBe('Please pay invoice 42 by Friday');
      const body = await logOf(id, all.body.id);
      expect(body).toMatchObject({ status: 'done', action: 'created' });
      expect(JSON.stringify(fake.requests.map((request) => request.body))).toContain(
        'Please pay the invoice by Friday.',
      );
      const from = await logOf(id, all.from.id);
      expect(from).toMatchObject({ status: 'done', sender: 'alice@example.com' });
      expect((await itemOf(from)).payload.email.from).toEqual({ name: 'Alice', address: 'alice@example.com' });
      const surrogate = await logOf(id, all.surrogate.id);
      expect(surrogate).toMatchObject({ status: 'done', subject: 'OK\ufffd!' });
      // Dovecot hands a NUL byte out as 0x80 (so over IMAP it arrives replaced); an import keeps it.
      const rawNul = await waitFor('the raw NUL message', async () =>
        (await logged(id)).find((entry) => entry.subject === 'A NUL in the Message-ID'),
      );
      expect(rawNul).toMatchObject({ status: 'done', action: 'created' });
      if (viaImport) expect(rawNul.message_id).toBe(all.rawNul.id);
      // Nothing of it anywhere: the log, the items, the stored dedupe of the classifier.
      const everything = JSON.stringify([await logged(id), (await call(t.app, 'GET', '/work?limit=1000')).body]);
      expect(everything).not.toContain('\\u0000');
      expect(LONE_SURROGATE.test(everything)).toBe(false);
      const box = await mailbox(id);
      expect(box.last_error).toBeNull();
      expect(box.counts.failed).toBe(0);
    }

    it('over IMAP, each variant is taken in cleaned and the mailbox goes on', async () => {
      const user = `nul-imap-${kind}`;
      const id = await connect(user);
      await waitFor('the mailbox to be idle', async () => (await mailbox(id)).state === 'idle');
      const all = variants(`imap-${kind}`);
      const after = newMessageId();
      // The raw NUL goes in as local delivery does: IMAP APPEND refuses NUL in a literal.
      dovecot.deliverLocally(user, all.rawNul.raw);
      await dovecot.append(user, [
        all.subject.raw,
        all.body.raw,
        all.from.raw,
        all.surrogate.raw,
        mail({ subject: 'Order badges', text: 'Please order badges.', messageId: after }),
      ]);
      await call(t.app, 'PATCH', `/mailboxes/${id}`, { name: 'NUL (poked)' });
      await expectCleaned(id, all, after, false);
      await waitFor('the mailbox to be idle', async () => (await mailbox(id)).state === 'idle');
    });

    it('by import, each variant is taken in cleaned and the import does not stall', async () => {
      const id = await connect(`nul-import-${kind}`, { name: 'NUL export', enabled: false });
      const all = variants(`import-${kind}`);
      const after = newMessageId();
      const messages = [
        all.subject.raw,
        all.body.raw,
        all.from.raw,
        all.surrogate.raw,
        all.rawNul.raw,
        Buffer.from(mail({ subject: 'Order badges', text: 'Please order badges.', messageId: after })),
      ];
      const mbox = Buffer.concat(
        messages.flatMap((message) => [
          Buffer.from('From sender@example.com Mon Jan  1 00:00:00 2024\n'),
          Buffer.from(message.toString('latin1').replace(/\r\n/g, '\n'), 'latin1'),
          Buffer.from('\n'),
        ]),
      );
      const accepted = await t.app.inject({
        method: 'POST',
        url: `/mailboxes/${id}/import`,
        headers: { 'content-type': 'application/mbox' },
        payload: mbox,
      });
      expect(accepted.statusCode, accepted.body).toBe(202);
      expect(accepted.json()).toMatchObject({ queued: 6 });
      await waitFor('the import to finish', async () => (await mailbox(id)).backfill.done === 6);
      await expectCleaned(id, all, after, true);
    });

    it('a model answer with U+0000 or a lone surrogate lands on the item cleaned', async () => {
      const id = await connect(`nul-model-${kind}`, { name: 'Model NUL', enabled: false });
      const messageId = newMessageId();
      fake.setAnswerer((prompt) =>
        prompt.includes('Echo a NUL')
          ? { ...FAKE_ANSWER, task_description: 'Pay\u0000 the invoice \ud800', reasoning: 'Asked\u0000.' }
          : null,
      );
      const accepted = await t.app.inject({
        method: 'POST',
        url: `/mailboxes/${id}/import`,
        headers: { 'content-type': 'message/rfc822' },
        payload: mail({ subject: 'Echo a NUL', text: 'Please.', messageId }),
      });
      expect(accepted.statusCode, accepted.body).toBe(202);
      const entry = await logOf(id, messageId);
      expect(entry).toMatchObject({ status: 'done', action: 'created' });
      const item = await itemOf(entry);
      expect(item.description).toBe('Pay the invoice \ufffd');
      expect(item.payload.classification.reasoning).toBe('Asked.');
    });

    it('a message the database still refuses is recorded as failed, with the reason, and the next one goes on', async () => {
      // A Message-ID longer than a PostgreSQL index entry can be (SQLite has no such limit).
      const huge = `<${randomBytes(6_000).toString('hex')}@example.com>`;
      const id = await connect(`nul-huge-${kind}`, { name: 'Huge id', enabled: false });
      const after = newMessageId();
      const mbox = [
        mail({ subject: 'A long Message-ID', text: 'Please read.', messageId: huge }),
        mail({ subject: 'Order badges', text: 'Please order badges.', messageId: after }),
      ]
        .map((message) => `From sender@example.com Mon Jan  1 00:00:00 2024\n${message.replace(/\r\n/g, '\n')}`)
        .join('\n');
      const accepted = await t.app.inject({
        method: 'POST',
        url: `/mailboxes/${id}/import`,
        headers: { 'content-type': 'application/mbox' },
        payload: mbox,
      });
      expect(accepted.statusCode, accepted.body).toBe(202);
      await waitFor('the import to finish', async () => (await mailbox(id)).backfill.done === 2);
      expect(await logOf(id, after)).toMatchObject({ status: 'done', action: 'created' });
      const entries = await logged(id);
      expect(entries).toHaveLength(2);
      const first = entries.find((entry) => entry.message_id !== after)!;
      if (kind === 'postgres') {
        expect(first).toMatchObject({ status: 'failed', action: 'failed', work_item_id: null });
        expect(first.error).toMatch(/index row size|could not be stored|not classified/);
        expect((await mailbox(id)).counts.failed).toBe(1);
      } else {
        expect(first).toMatchObject({ status: 'done', message_id: huge });
      }
    });
  });
});
