import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/shared/config/config.js';
import { describeMail } from '../../src/shared/config/mail.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { TEST_TOKENS } from './outbox-support.js';

// The mail settings: parsed once, refused at start-up with the variable named and no secret
// echoed; without them the desk says so once and asking works as before, with no mail written.

const SECRET = 's3cr3t-pw-in-url';

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('loadConfig accepted it');
}

describe('the mail settings', () => {
  it('reads the URL, the sender, the links and the reply address; the password only through a function', () => {
    const { mail } = loadConfig({
      SMTP_URL: `smtps://desk%40example.org:${SECRET}@mail.example.org`,
      MAIL_FROM: 'Agent Desk <desk@Example.org>',
      PUBLIC_URL: 'https://desk.example.org/',
      INTAKE_REPLY_ADDRESS: 'desk+{token}@example.org',
    });
    expect(mail.smtp).toMatchObject({ host: 'mail.example.org', port: 465, secure: true, user: 'desk@example.org' });
    expect(mail.smtp!.password()).toBe(SECRET);
    expect(mail).toMatchObject({ fromDomain: 'example.org', publicUrl: 'https://desk.example.org' });
    expect(JSON.stringify(mail)).not.toContain(SECRET);
    expect(describeMail(mail)).not.toContain(SECRET);
    expect(Object.isFrozen(mail.smtp)).toBe(true);
  });

  it('takes the password from SMTP_PASSWORD_FILE', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agentdesk-mail-')), 'password');
    writeFileSync(file, `${SECRET}\n`);
    const { mail } = loadConfig({
      SMTP_URL: 'smtp://desk@127.0.0.1:2525',
      SMTP_PASSWORD_FILE: file,
      MAIL_FROM: 'desk@example.org',
    });
    expect(mail.smtp!.password()).toBe(SECRET);
    expect(
      refusal({ SMTP_URL: `smtp://desk:${SECRET}@h`, SMTP_PASSWORD_FILE: file, MAIL_FROM: 'd@e.org' }).variable,
    ).toBe('SMTP_PASSWORD_FILE');
  });

  it("reads the sender's lease from NOTIFY_LEASE_S (whole seconds, 5 minutes unless set)", () => {
    expect(loadConfig({}).mail.sendLeaseMs).toBe(300_000);
    expect(loadConfig({ NOTIFY_LEASE_S: '2' }).mail.sendLeaseMs).toBe(2_000);
    for (const value of ['0', '1.5', 'soon', '3601']) {
      const error = refusal({ NOTIFY_LEASE_S: value });
      expect(error.variable).toBe('NOTIFY_LEASE_S');
      expect(error.message).toContain(value);
    }
  });

  it('refuses half a setting or a bad value, naming the variable and never the password', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ SMTP_URL: `smtp://u:${SECRET}@h` }, 'MAIL_FROM'],
      [{ MAIL_FROM: 'desk@example.org' }, 'SMTP_URL'],
      [{ SMTP_URL: `http://u:${SECRET}@h`, MAIL_FROM: 'desk@example.org' }, 'SMTP_URL'],
      [{ SMTP_URL: `smtp://u:${SECRET}@h`, MAIL_FROM: 'not an address' }, 'MAIL_FROM'],
      [{ INTAKE_REPLY_ADDRESS: 'desk@example.org' }, 'INTAKE_REPLY_ADDRESS'],
      [{ PUBLIC_URL: 'ftp://desk' }, 'PUBLIC_URL'],
    ];
    for (const [env, variable] of cases) {
      const error = refusal(env);
      expect(error.variable, JSON.stringify(env)).toBe(variable);
      expect(error.message).not.toContain(SECRET);
    }
  });
});

describe.each(await storesUnderTest())('no mail settings on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { notify: { tokens: TEST_TOKENS } });
  });
  afterAll(() => t?.close());

  it('says so once at start-up; asking works and writes no mail', async () => {
    expect(t.logs.lines.filter((line) => line.includes('mail: off'))).toHaveLength(1);
    const type = `nomail-${kind}`;
    // mia would be told at once, were there mail settings.
    const put = await call(
      t.app,
      'PUT',
      '/people/mia',
      { email: 'mia@example.org', notify: 'immediate' },
      { 'x-user': 'mia' },
    );
    expect(put.status, put.text).toBe(201);
    const item = (
      await call(t.app, 'POST', '/work', { type, description: 'x', watchers: ['mia'] }, { 'x-user': 'admin' })
    ).body;
    const claim = await call(t.app, 'POST', '/work/claim', { agent: 'ada', types: [type] }, { 'x-user': 'ada' });
    expect(claim.status, claim.text).toBe(200);
    const asked = await call(t.app, 'POST', `/work/${item.id}/questions`, { question: 'Go?' }, { 'x-user': 'ada' });
    expect(asked.status, asked.text).toBe(201);
    expect((await call(t.app, 'GET', `/work/${item.id}/notifications`)).body).toEqual([]);
  });
});
