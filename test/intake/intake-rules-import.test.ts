import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { FAKE_ANSWER, type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { SECRET_KEY } from '../support/intake.js';
import { mail, newMessageId, waitFor } from '../support/mail.js';

// Routing rules edited on a mailbox, a UIDVALIDITY change, imports of .eml and mbox
// files through the same pipeline, and a mailbox disabled or deleted while it is watched.

const PASSWORD = 'rules-test-imap-password';
const NEWSLETTER = {
  ...FAKE_ANSWER,
  needs_action: false,
  category: 'newsletter',
  priority: 'low',
  task_description: null,
};

const stores = await storesUnderTest();

describe('intake rules, resync and imports', () => {
  let dovecot: Dovecot;
  let fake: FakeLlm;
  beforeAll(async () => {
    dovecot = await startDovecot({ password: PASSWORD });
    fake = await startFakeLlm();
    fake.setAnswerer((prompt) => (/<email_subject>[^<]*(newsletter|digest)/i.test(prompt) ? NEWSLETTER : null));
  });
  afterAll(async () => {
    await dovecot?.close();
    await fake?.close();
  });

  describe.each(stores)('on %s', (kind) => {
    let t: TestApp;
    const user = `rules-${kind}`;

    beforeAll(async () => {
      t = await startWorkApp(kind, {
        AGENTDESK_SECRET_KEY: SECRET_KEY,
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: fake.openaiBaseUrl,
        LLM_API_KEY: 'sk-fake-intake',
        LLM_MAX_RETRIES: '0',
        INTAKE_POLL_S: '300',
        INTAKE_RECONNECT_MAX_S: '1',
        INTAKE_IMPORT_MAX_MB: '1',
        // The test's dovecot listens on loopback, which a mailbox may use only when listed.
        INTAKE_ALLOWED_HOSTS: dovecot.host,
      });
    });
    afterAll(() => t?.close());

    async function connect(extra: Record<string, unknown> = {}): Promise<string> {
      const created = await call(t.app, 'POST', '/mailboxes', {
        name: 'Rules',
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
    const idle = (id: string) => waitFor('the mailbox to be idle', async () => (await mailbox(id)).state === 'idle');
    const logOf = (id: string, messageId: string) =>
      waitFor(`${messageId} in the log`, async () =>
        ((await call(t.app, 'GET', `/mailboxes/${id}/messages?limit=500`)).body as any[]).find(
          (entry) => entry.message_id === messageId,
        ),
      );
    const itemsOf = async (id: string) =>
      ((await call(t.app, 'GET', '/work?limit=1000')).body as any[]).filter(
        (item) => item.payload?.email?.mailbox_id === id,
      );
    const askedAbout = (subject: string) =>
      fake.requests.filter((request) => JSON.stringify(request.body).includes(`<email_subject>${subject}<`)).length;

    it('routing rules: the first match decides the item type, agent and priority, or only records', async () => {
      const id = await connect();
      await idle(id);
      const edited = await call(t.app, 'PATCH', `/mailboxes/${id}`, {
        rules: [
          {
            match: { sender: ['vendor.io'] },
            action: 'create_item',
            item: { type: 'vendor_mail', agent: 'ada', priority: 2 },
          },
          { match: { subject_contains: 'ignore me' }, action: 'record' },
        ],
      });
      expect(edited.status, edited.text).toBe(200);
      const fromVendor = newMessageId();
      const ignored = newMessageId();
      await dovecot.append(user, [
        mail({ from: 'news@mail.vendor.io', subject: 'Vendor newsletter', text: 'News.', messageId: fromVendor }),
        mail({ subject: 'Ignore me: approve this', text: 'Please approve.', messageId: ignored }),
      ]);
      expect(await logOf(id, ignored)).toMatchObject({
        action: 'recorded',
        rule_index: 1,
        category: 'action_required',
        work_item_id: null,
      });
      const vendor = await logOf(id, fromVendor);
      expect(vendor).toMatchObject({ action: 'created', rule_index: 0, category: 'newsletter' });
      const item = (await call(t.app, 'GET', `/work/${vendor.work_item_id}`)).body;
      expect(item).toMatchObject({ type: 'vendor_mail', status: 'dispatched', assigned_agent: 'ada', priority: 2 });
      expect(item.dispatch_log).toHaveLength(1);
    });

    it('a UIDVALIDITY change reads the folder again without duplicates or a second classification', async () => {
      const setup = await dovecot.client(user);
      await setup.mailboxCreate('Team');
      await setup.logout();
      const id = await connect({ folder: 'Team', name: 'Team folder' });
      await idle(id);
      const first = mail({ subject: `Fix the VPN (${kind})`, text: 'Please fix the VPN.', messageId: newMessageId() });
      const second = mail({
        subject: `Order badges (${kind})`,
        text: 'Please order badges.',
        messageId: newMessageId(),
      });
      await dovecot.append(user, [first, second], 'Team');
      await waitFor('two items', async () => (await itemsOf(id)).length === 2);
      const before = (await mailbox(id)).counts.seen;

      // The folder is deleted and made again: same messages, a new UIDVALIDITY, and one new message.
      await dovecot.recreateFolder(user, 'Team');
      const third = newMessageId();
      await dovecot.append(
        user,
        [
          first,
          second,
          mail({ subject: 'Book the offsite', text: 'Please book the offsite venue.', messageId: third }),
        ],
        'Team',
      );
      await call(t.app, 'PATCH', `/mailboxes/${id}`, { name: 'Team folder (poked)' });
      expect(await logOf(id, third)).toMatchObject({ action: 'created' });
      expect(await itemsOf(id)).toHaveLength(3);
      expect(askedAbout(`Fix the VPN (${kind})`)).toBe(1);
      expect(askedAbout(`Order badges (${kind})`)).toBe(1);
      expect((await mailbox(id)).counts.seen).toBe(before + 1);
      await idle(id);
    });

    it('imports an .eml and an mbox through the same pipeline, with progress; the same file again adds nothing', async () => {
      // No server behind it: an import needs none.
      const id = await connect({ name: 'Export', host: '127.0.0.1', port: 1, enabled: false });
      const one = newMessageId();
      const eml = await t.app.inject({
        method: 'POST',
        url: `/mailboxes/${id}/import`,
        headers: { 'content-type': 'message/rfc822' },
        payload: mail({ subject: 'Sign the NDA', text: 'Please sign the NDA.', messageId: one }),
      });
      expect(eml.statusCode, eml.body).toBe(202);
      expect(eml.json()).toEqual({ queued: 1, backfill: { done: 0, total: 1 } });
      expect(await logOf(id, one)).toMatchObject({ source: 'import', action: 'created' });

      const lines: string[] = [];
      for (let n = 1; n <= 30; n += 1) {
        const subject = n % 2 ? `Please call supplier ${n}` : `Monthly digest ${n}`;
        // As an exporter writes it: LF line ends, and a body line starting "From " quoted.
        const message = mail({
          subject,
          text: `From the export, number ${n}.`,
          messageId: `<export-${kind}-${n}@example.com>`,
        })
          .replace(/\r\n/g, '\n')
          .replace(/^From /gm, '>From ');
        lines.push(`From sender@example.com Mon Jan  1 00:00:${String(n).padStart(2, '0')} 2024\n${message}`);
      }
      const mbox = lines.join('\n');
      const upload = () =>
        t.app.inject({
          method: 'POST',
          url: `/mailboxes/${id}/import`,
          headers: { 'content-type': 'application/mbox' },
          payload: mbox,
        });
      const accepted = await upload();
      expect(accepted.statusCode, accepted.body).toBe(202);
      expect(accepted.json()).toMatchObject({ queued: 30, backfill: { total: 30 } });
      const finished = await waitFor('the import to finish', async () => {
        const box = await mailbox(id);
        return box.backfill.done === 30 ? box : null;
      });
      expect(finished.backfill).toEqual({ done: 30, total: 30 });
      expect(finished.state).toBe('stopped');
      expect(await itemsOf(id)).toHaveLength(16);
      // Every line of the export survived the mbox split (">From" unquoted, the From_ line gone).
      const logged = (await call(t.app, 'GET', `/mailboxes/${id}/messages?limit=500`)).body as any[];
      expect(logged.filter((entry) => entry.source === 'import')).toHaveLength(31);

      const asked = fake.requests.length;
      expect((await upload()).statusCode).toBe(202);
      await waitFor(
        'the second import to finish',
        async () => (await mailbox(id)).backfill.done === 30 && (await mailbox(id)).counts.seen === 61,
      );
      expect(fake.requests.length).toBe(asked);
      expect(await itemsOf(id)).toHaveLength(16);
      const again = (await call(t.app, 'GET', `/mailboxes/${id}/messages?action=duplicate&limit=500`)).body as any[];
      expect(again).toHaveLength(30);
    });

    it('answers bad uploads with 4xx problems', async () => {
      const id = await connect({ name: 'Bad uploads', host: '127.0.0.1', port: 1, enabled: false });
      const post = (url: string, type: string, payload: string | Buffer) =>
        t.app.inject({ method: 'POST', url, headers: { 'content-type': type }, payload });
      const json = await post(`/mailboxes/${id}/import`, 'application/json', '{"a":1}');
      expect(json.statusCode).toBe(415);
      expect(json.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((await post(`/mailboxes/${id}/import`, 'text/csv', 'a,b')).statusCode).toBe(415);
      // The refusal names the file types the import takes, not JSON.
      const text = await post(`/mailboxes/${id}/import`, 'text/plain', 'Subject: x\r\n\r\ny');
      expect(text.statusCode).toBe(415);
      expect(text.json().detail).toContain('message/rfc822');
      expect(text.json().detail).toContain('application/mbox');
      expect(text.json().detail).not.toMatch(/JSON/);
      const empty = await post(`/mailboxes/${id}/import`, 'message/rfc822', '\r\n  \r\n');
      expect(empty.statusCode).toBe(422);
      expect(empty.json().detail).toContain('holds no message');
      expect(
        (await post('/mailboxes/00000000-0000-4000-8000-000000000000/import', 'message/rfc822', 'Subject: x\r\n\r\ny'))
          .statusCode,
      ).toBe(404);
      const tooLarge = await post(`/mailboxes/${id}/import`, 'application/mbox', Buffer.alloc(1_200_000, 'a'));
      expect(tooLarge.statusCode).toBe(413);
      expect(tooLarge.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('a disabled mailbox is stopped; a deleted one is let go, its work items stay', async () => {
      const id = await connect({ name: 'Short-lived' });
      await idle(id);
      const kept = newMessageId();
      await dovecot.append(user, [
        mail({ subject: 'Water the plants', text: 'Please water the plants.', messageId: kept }),
      ]);
      const entry = await logOf(id, kept);
      expect((await call(t.app, 'PATCH', `/mailboxes/${id}`, { enabled: false })).status).toBe(200);
      await waitFor('the stopped state', async () => (await mailbox(id)).state === 'stopped');
      expect((await call(t.app, 'PATCH', `/mailboxes/${id}`, { enabled: true })).status).toBe(200);
      await idle(id);
      expect((await call(t.app, 'DELETE', `/mailboxes/${id}`)).status).toBe(204);
      expect((await call(t.app, 'GET', `/work/${entry.work_item_id}`)).status).toBe(200);
      expect((await call(t.app, 'GET', `/mailboxes/${id}/messages`)).status).toBe(404);
    });
  });
});
