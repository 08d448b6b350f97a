import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../support/auth.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { call } from '../support/http.js';
import { SECRET_KEY } from '../support/intake.js';
import { freePort } from '../support/processes.js';

// Mailboxes: the API that connects a mailbox. The secret is sealed before it is
// stored and never comes back; a server without AGENTDESK_SECRET_KEY refuses to take one; the
// connection test names the stage that failed against a real IMAP server (dovecot).

const PASSWORD = 'Imap-Pa55word-that-must-never-leak-7c1d';

const stores = await storesUnderTest();

function imapBody(dovecot: Dovecot, extra: Record<string, unknown> = {}) {
  return {
    name: 'Support inbox',
    kind: 'imap',
    host: '127.0.0.1',
    port: dovecot.port,
    tls: 'none',
    username: 'support',
    password: PASSWORD,
    enabled: false,
    ...extra,
  };
}

describe('mailbox connection test against dovecot', () => {
  let dovecot: Dovecot;
  beforeAll(async () => {
    dovecot = await startDovecot({ password: PASSWORD });
  });
  afterAll(() => dovecot?.close());

  describe.each(stores)('on %s', (kind) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startWorkApp(kind, {
        AGENTDESK_SECRET_KEY: SECRET_KEY,
        INTAKE_WORKER: 'false',
        INTAKE_ALLOWED_HOSTS: dovecot.host,
      });
    });
    afterAll(() => t?.close());

    const create = async (extra: Record<string, unknown> = {}) => {
      const response = await call(t.app, 'POST', '/mailboxes', imapBody(dovecot, extra));
      expect(response.status, response.text).toBe(201);
      return response.body as { id: string };
    };
    const test = async (id: string) => {
      const response = await call(t.app, 'POST', `/mailboxes/${id}/test`);
      expect(response.status, response.text).toBe(200);
      return response.body;
    };

    it('logs in, opens the folder and says what it found', async () => {
      await dovecot.append('support', ['Subject: hello\r\n\r\nbody\r\n']);
      const answer = await test((await create()).id);
      expect(answer).toMatchObject({ ok: true, stage: null, folder: { path: 'INBOX' } });
      expect(answer.folder.messages).toBeGreaterThanOrEqual(1);
      expect(answer.message).toContain('Logged in as support');
    });

    it('a wrong password is a login failure', async () => {
      const { id } = await create({ password: 'not-the-password' });
      expect(await test(id)).toMatchObject({ ok: false, stage: 'login', folder: null });
    });

    it('a folder that does not exist is a folder failure', async () => {
      const answer = await test((await create({ folder: 'Nowhere/Folder' })).id);
      expect(answer).toMatchObject({ ok: false, stage: 'folder' });
      expect(answer.message).toContain('Nowhere/Folder');
    });

    it('a closed port is a connect failure, a host that does not resolve a DNS failure', async () => {
      const closed = await test((await create({ port: await freePort() })).id);
      expect(closed).toMatchObject({ ok: false, stage: 'connect' });
      // No library code that tells a closed port from a silent or a foreign one.
      expect(closed.message).not.toContain('ECONNREFUSED');
      const dns = await test((await create({ host: 'no-such-host.invalid' })).id);
      expect(dns).toMatchObject({ ok: false, stage: 'dns' });
      expect(dns.message).toContain('no-such-host.invalid');
    });

    it('TLS against a clear-text port, or STARTTLS a server does not offer, is a TLS failure', async () => {
      const direct = await test((await create({ tls: 'tls' })).id);
      // Before an IMAP server answered, nothing tells what listens there, nor any OpenSSL text.
      const closed = await test((await create({ port: await freePort() })).id);
      expect(direct).toMatchObject({ ok: false, stage: 'connect' });
      expect(direct.message.replace(String(dovecot.port), 'PORT')).toBe(closed.message.replace(/\d+(?=;)/, 'PORT'));
      expect(direct.message).not.toMatch(/ssl|openssl|version number|EPROTO|routines/i);
      const upgrade = await test((await create({ tls: 'starttls' })).id);
      expect(upgrade).toMatchObject({ ok: false, stage: 'tls' });
      expect(upgrade.message).toMatch(/STARTTLS/);
    });

    it('never returns, logs or stores the password in clear', async () => {
      const { id } = await create();
      const responses = [
        await call(t.app, 'GET', `/mailboxes/${id}`),
        await call(t.app, 'GET', '/mailboxes'),
        await call(t.app, 'PATCH', `/mailboxes/${id}`, { password: `${PASSWORD}-2` }),
        await call(t.app, 'POST', `/mailboxes/${id}/test`),
      ];
      for (const response of responses) {
        expect(response.status).toBeLessThan(300);
        expect(response.text).not.toContain(PASSWORD);
      }
      const dump = await dumpDatabase(t.database);
      expect(dump).toContain(id);
      expect(dump).not.toContain(PASSWORD);
      expect(dump).not.toContain(Buffer.from(PASSWORD).toString('base64'));
      expect(t.logs.text()).not.toContain(PASSWORD);
    });
  });
});

describe.each(stores)('mailbox API on %s', (kind) => {
  let t: TestApp;
  let bare: TestApp;
  const body = (extra: Record<string, unknown> = {}) => ({
    name: 'Ops',
    kind: 'imap',
    host: 'imap.example.com',
    username: 'ops@example.com',
    password: PASSWORD,
    ...extra,
  });

  let listed: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind, { AGENTDESK_SECRET_KEY: SECRET_KEY, INTAKE_WORKER: 'false' });
    bare = await startWorkApp(kind, { INTAKE_WORKER: 'false' });
    listed = await startWorkApp(kind, {
      AGENTDESK_SECRET_KEY: SECRET_KEY,
      INTAKE_WORKER: 'false',
      INTAKE_ALLOWED_HOSTS: '[::1], 10.0.0.0/8,localhost,169.254.169.254',
    });
  });
  afterAll(async () => {
    await t?.close();
    await bare?.close();
    await listed?.close();
  });

  it('refuses mailbox hosts on loopback, private, link-local and metadata addresses with a 422 on host', async () => {
    const refused = [
      '169.254.169.254',
      '127.0.0.1',
      'localhost',
      '10.1.2.3',
      '192.168.0.10',
      '::1',
      '[::1]',
      '::ffff:169.254.169.254',
      'fd00:ec2::254',
      '0.0.0.0',
      'fe80::1',
      '100.100.100.200',
    ];
    for (const host of refused) {
      const response = await call(t.app, 'POST', '/mailboxes', body({ host, port: 22, enabled: false }));
      expect(response.status, `${host}: ${response.text}`).toBe(422);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body.errors, host).toEqual([
        { field: 'host', message: expect.stringMatching(/^is not allowed: /) },
      ]);
    }
    const brackets = await call(t.app, 'POST', '/mailboxes', body({ host: '[imap.example.com]' }));
    expect(brackets.status).toBe(422);
    expect(brackets.body.errors).toEqual([{ field: 'host', message: expect.stringContaining('IPv6') }]);
    // Editing is checked the same way.
    const id = (await call(t.app, 'POST', '/mailboxes', body({ enabled: false }))).body.id;
    const moved = await call(t.app, 'PATCH', `/mailboxes/${id}`, { host: '169.254.169.254' });
    expect(moved.status).toBe(422);
    expect(moved.body.errors).toEqual([{ field: 'host', message: expect.stringContaining('link-local') }]);
    expect((await call(t.app, 'GET', `/mailboxes/${id}`)).body.host).toBe('imap.example.com');
    expect((await call(t.app, 'GET', '/mailboxes')).body.map((m: { host: string }) => m.host)).not.toContain(
      '169.254.169.254',
    );
  });

  it('takes loopback and private hosts the operator listed in INTAKE_ALLOWED_HOSTS, never link-local ones; [::1] is stored as ::1', async () => {
    for (const host of ['localhost', '10.20.30.40']) {
      const response = await call(listed.app, 'POST', '/mailboxes', body({ host, enabled: false }));
      expect(response.status, `${host}: ${response.text}`).toBe(201);
      expect(response.body.host).toBe(host);
    }
    const bracketed = await call(listed.app, 'POST', '/mailboxes', body({ host: '[::1]', enabled: false }));
    expect(bracketed.status, bracketed.text).toBe(201);
    expect(bracketed.body.host).toBe('::1');
    // Listed or not, a metadata address is never a mail server.
    const metadata = await call(listed.app, 'POST', '/mailboxes', body({ host: '169.254.169.254', enabled: false }));
    expect(metadata.status).toBe(422);
    expect(metadata.body.errors).toEqual([{ field: 'host', message: expect.stringContaining('link-local') }]);
    expect((await call(listed.app, 'POST', '/mailboxes', body({ host: '192.168.1.1', enabled: false }))).status).toBe(
      422,
    );
  });

  it('refuses a secret it could not encrypt: no AGENTDESK_SECRET_KEY is a 422 that says so', async () => {
    const response = await call(bare.app, 'POST', '/mailboxes', body());
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.errors).toEqual([
      { field: 'password', message: expect.stringContaining('AGENTDESK_SECRET_KEY') },
    ]);
    expect(response.text).not.toContain(PASSWORD);
    expect((await call(bare.app, 'GET', '/mailboxes')).body).toEqual([]);
  });

  it('creates with defaults, shows no secret, lists, reads, edits and deletes', async () => {
    const created = await call(t.app, 'POST', '/mailboxes', body());
    expect(created.status, created.text).toBe(201);
    expect(created.headers.location).toBe(`/mailboxes/${created.body.id}`);
    expect(created.body).toMatchObject({
      name: 'Ops',
      kind: 'imap',
      port: 993,
      tls: 'tls',
      folder: 'INBOX',
      enabled: true,
      auth: 'password',
      has_secret: true,
      since: null,
      project_id: null,
      rules: [],
      state: 'stopped',
      counts: { seen: 0, classified: 0, items_created: 0, notes_added: 0, failed: 0 },
      backfill: { done: 0, total: 0 },
    });
    expect(created.body).not.toHaveProperty('password');
    expect(created.body).not.toHaveProperty('secret');
    const { id } = created.body;

    expect((await call(t.app, 'GET', `/mailboxes/${id}`)).body).toEqual(created.body);
    expect((await call(t.app, 'GET', '/mailboxes')).body.map((m: { id: string }) => m.id)).toContain(id);

    const project = await call(t.app, 'POST', '/projects', { name: `intake-${kind}` });
    const edited = await call(t.app, 'PATCH', `/mailboxes/${id}`, {
      enabled: false,
      access_token: 'ya29.token-for-xoauth2',
      project_id: project.body.id,
      rules: [{ match: { sender: ['example.org'] }, action: 'record' }],
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({
      enabled: false,
      auth: 'xoauth2',
      project_id: project.body.id,
      rules: [{ action: 'record' }],
    });
    expect(edited.text).not.toContain('ya29');

    expect((await call(t.app, 'DELETE', `/mailboxes/${id}`)).status).toBe(204);
    expect((await call(t.app, 'GET', `/mailboxes/${id}`)).status).toBe(404);
    expect((await call(t.app, 'DELETE', `/mailboxes/${id}`)).status).toBe(404);
    expect((await call(t.app, 'POST', `/mailboxes/${id}/test`)).status).toBe(404);
  });

  it('answers bad bodies with 422s that name the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [body({ host: undefined }), 'host'],
      [body({ password: undefined }), 'password'],
      [body({ access_token: 'token' }), 'access_token'],
      [body({ tenant_id: 'contoso' }), 'tenant_id'],
      [body({ tls: 'ssl' }), 'tls'],
      [body({ port: 70_000 }), 'port'],
      [body({ project_id: '00000000-0000-4000-8000-000000000000' }), 'project_id'],
      [
        body({
          rules: [{ match: {}, action: 'create_item', item: { project_id: '00000000-0000-4000-8000-000000000000' } }],
        }),
        'rules.0.item.project_id',
      ],
      [body({ rules: [{ match: { category: ['invoices'] }, action: 'record' }] }), 'rules.0.match.category.0'],
      [body({ rules: [{ match: {}, action: 'record', item: { priority: 1 } }] }), 'rules.0.item'],
      [body({ since: 'yesterday' }), 'since'],
      [body({ secret: 'x' }), 'secret'],
      [body({ kind: 'pop3' }), 'kind'],
    ];
    for (const [payload, field] of cases) {
      const response = await call(t.app, 'POST', '/mailboxes', payload);
      expect(response.status, `${field}: ${response.text}`).toBe(422);
      expect(
        response.body.errors.map((e: { field: string }) => e.field),
        response.text,
      ).toContain(field);
      expect(response.text).not.toContain(PASSWORD);
    }
    const id = (await call(t.app, 'POST', '/mailboxes', body())).body.id;
    expect((await call(t.app, 'PATCH', `/mailboxes/${id}`, {})).status).toBe(422);
    expect((await call(t.app, 'PATCH', `/mailboxes/${id}`, { kind: 'graph' })).status).toBe(422);
    expect((await call(t.app, 'PATCH', `/mailboxes/${id}`, { password: 'a', access_token: 'b' })).status).toBe(422);
    expect((await call(t.app, 'GET', '/mailboxes/not-a-uuid')).status).toBe(404);
    expect((await call(t.app, 'GET', `/mailboxes/${id}/messages?limit=0`)).status).toBe(422);
    expect((await call(t.app, 'GET', `/mailboxes/${id}/messages?cursor=bogus`)).status).toBe(422);
  });
});

describe('XOAUTH2 against dovecot', () => {
  let dovecot: Dovecot;
  let t: TestApp;
  beforeAll(async () => {
    dovecot = await startDovecot({ password: PASSWORD, oauth: true });
    t = await startWorkApp('sqlite', {
      AGENTDESK_SECRET_KEY: SECRET_KEY,
      INTAKE_WORKER: 'false',
      INTAKE_ALLOWED_HOSTS: dovecot.host,
    });
  });
  afterAll(async () => {
    await t?.close();
    await dovecot?.close();
  });

  it('logs in with an access token instead of a password, and names a refused token a login failure', async () => {
    const token = dovecot.issueToken('oauth-user');
    const { password: _password, ...withoutPassword } = imapBody(dovecot, { username: 'oauth-user' });
    const created = await call(t.app, 'POST', '/mailboxes', { ...withoutPassword, access_token: token });
    expect(created.status, created.text).toBe(201);
    expect(created.body.auth).toBe('xoauth2');
    expect(created.text).not.toContain(token);
    expect((await call(t.app, 'POST', `/mailboxes/${created.body.id}/test`)).body).toMatchObject({
      ok: true,
      message: expect.stringContaining('oauth-user'),
    });
    const revoked = await call(t.app, 'POST', '/mailboxes', { ...withoutPassword, access_token: 'ya29.not-issued' });
    expect((await call(t.app, 'POST', `/mailboxes/${revoked.body.id}/test`)).body).toMatchObject({
      ok: false,
      stage: 'login',
    });
    expect(await dumpDatabase(t.database)).not.toContain(token);
  });
});
