import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/shared/secret-box.js';
import { secretContext } from '../../src/intake/secrets.js';
import { ConfigError, loadConfig } from '../../src/shared/config/config.js';

// Mailbox secrets at rest: AES-256-GCM, bound to their mailbox, refused under another key.

const KEY = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

describe('secret box', () => {
  const box = createSecretBox(KEY)!;

  it('seals to something without the clear text, different every time, that opens only for its mailbox', () => {
    const first = box.seal('hunter2-imap-password', secretContext('a'));
    const second = box.seal('hunter2-imap-password', secretContext('a'));
    expect(first).not.toContain('hunter2');
    expect(first).not.toBe(second);
    expect(box.open(first, secretContext('a'))).toBe('hunter2-imap-password');
    expect(() => box.open(first, secretContext('b'))).toThrow(/cannot be decrypted/);
  });

  it('refuses a tampered value and a value sealed under another key', () => {
    const sealed = box.seal('secret', secretContext('a'));
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[2] = body.toString('base64url');
    expect(() => box.open(parts.join('.'), secretContext('a'))).toThrow(/cannot be decrypted/);
    const other = createSecretBox('ff'.repeat(32))!;
    expect(() => other.open(sealed, secretContext('a'))).toThrow(/cannot be decrypted/);
    expect(() => box.open('garbage', secretContext('a'))).toThrow(/cannot be decrypted/);
  });

  it('takes AGENTDESK_SECRET_KEY as hex or base64, and names a bad one without echoing it', () => {
    expect(loadConfig({ AGENTDESK_SECRET_KEY: KEY.toUpperCase() }).intake.secretKey).toBe(KEY);
    expect(loadConfig({ AGENTDESK_SECRET_KEY: Buffer.from(KEY, 'hex').toString('base64') }).intake.secretKey).toBe(KEY);
    expect(loadConfig({}).intake.secretKey).toBeNull();
    const bad = 'too-short-a-key-to-use';
    let error: unknown;
    try {
      loadConfig({ AGENTDESK_SECRET_KEY: bad });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('AGENTDESK_SECRET_KEY');
    expect((error as Error).message).not.toContain(bad);
  });
});
