import { afterAll, describe, expect, it } from 'vitest';
import { type Dovecot, startDovecot } from '../support/dovecot.js';

// The throwaway IMAP server the intake tests stand on: mail delivered with APPEND is there, and
// survives a stop and a start on the same port.

describe('throwaway dovecot', () => {
  let dovecot: Dovecot | undefined;
  afterAll(() => dovecot?.close());

  it('takes APPENDs, keeps them across a restart, and refuses a wrong password', async () => {
    dovecot = await startDovecot({ password: 'helper-check-password' });
    const uids = await dovecot.append('alice', ['Subject: one\r\n\r\nfirst\r\n', 'Subject: two\r\n\r\nsecond\r\n']);
    expect(uids).toEqual([1, 2]);
    await dovecot.stop();
    expect(dovecot.running()).toBe(false);
    await dovecot.start();
    const client = await dovecot.client('alice');
    const box = await client.mailboxOpen('INBOX');
    expect(box.exists).toBe(2);
    await client.logout();
    const { ImapFlow } = await import('imapflow');
    const wrong = new ImapFlow({
      host: '127.0.0.1',
      port: dovecot.port,
      secure: false,
      auth: { user: 'alice', pass: 'nope' },
      logger: false,
    });
    wrong.on('error', () => undefined);
    await expect(wrong.connect()).rejects.toMatchObject({ authenticationFailed: true });
  });
});
