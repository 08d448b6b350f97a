import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks signing (standardwebhooks.com): an HMAC-SHA256 over "id.timestamp.body" keyed
// with the secret's bytes, one "v1,<base64>" per secret that signs now, space-separated.

const PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const MESSAGE_ID_BYTES = 16;

/** A new secret: random bytes, shown as whsec_ + base64. */
export function newSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** A delivery's webhook-id: msg_ and random bytes (base64url), kept for every retry. */
export function newMessageId(): string {
  return `msg_${randomBytes(MESSAGE_ID_BYTES).toString('base64url')}`;
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt, signed with every secret given (current first). */
export function signedHeaders(secrets: readonly string[], id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  };
}

/** The associated data of an endpoint's sealed secrets: a sealed value opens only on its own row. */
export function secretContext(endpointId: string): string {
  return `agentdesk/webhook/${endpointId}/secret`;
}

/** The associated data of an endpoint's sealed extra headers. */
export function headersContext(endpointId: string): string {
  return `agentdesk/webhook/${endpointId}/headers`;
}
