// Secrets the desk must present again (mailbox passwords, webhook signing keys) at rest: AES-256-GCM
// under the key from AGENTDESK_SECRET_KEY. The key never leaves this module and is never logged; the
// clear text exists only in memory, on its way to use.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/** A fresh nonce per seal. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /**
   * `context` (what the secret belongs to) is associated data, so a sealed value copied onto
   * another row does not open there.
   */
  seal(plain: string, context: string): string;
  /** Throws SecretUnreadable when the value was sealed under another key or for another row. */
  open(sealed: string, context: string): string;
}

export class SecretUnreadable extends Error {
  constructor() {
    super('the stored secret cannot be decrypted: AGENTDESK_SECRET_KEY is not the key it was stored with');
    this.name = 'SecretUnreadable';
  }
}

/** `hexKey`: 64 hex digits (config.ts checks it); null when the server has no key. */
export function createSecretBox(hexKey: string | null): SecretBox | null {
  if (hexKey === null) return null;
  const key = Buffer.from(hexKey, 'hex');
  if (key.length !== 32) throw new Error('the secret key must be 32 bytes');
  return {
    seal(plain, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, nonce, body, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, context) {
      const [version, nonce, body, tag] = sealed.split('.');
      if (version !== VERSION || nonce === undefined || body === undefined || tag === undefined)
        throw new SecretUnreadable();
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretUnreadable();
      }
    },
  };
}
