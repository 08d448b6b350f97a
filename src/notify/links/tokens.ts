import { createHmac, timingSafeEqual } from 'node:crypto';

// Signed tokens, HMAC-SHA256 with the link secret (secret.ts). Answer links name a question, a
// person and an expiry; reply tokens name a notification (the outbox row naming question and
// person) and must survive an email local part: short, lowercase, no padding.

export const TOKEN_REFUSALS = ['malformed', 'forged', 'expired'] as const;
export type TokenRefusal = (typeof TOKEN_REFUSALS)[number];

export type Verified<T> = { ok: true; claims: T } | { ok: false; reason: TokenRefusal };

export interface AnswerLinkClaims {
  question_id: string;
  /** The person the link answers as. */
  person: string;
  /** Epoch seconds after which the link no longer answers. */
  expires_at: number;
}

export interface ReplyClaims {
  notification_id: string;
}

/** Each kind signs under its own label: a token of one kind never verifies as the other. */
const PURPOSE = { answer: 'agentdesk answer-link v1\n', reply: 'agentdesk reply-address v1\n' } as const;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PERSON = /^[A-Za-z0-9_.@-]{1,64}$/;
const MAX_TOKEN_LENGTH = 1_024;
/** Truncated MAC of a reply token: 80 bits, 16 base32 characters. */
const REPLY_MAC_BYTES = 10;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** 26 characters for a 16-byte id, a dash, 16 for the MAC: 43, which leaves 21 of 64 for a prefix. */
const REPLY_TOKEN = /^([a-z2-7]{26})-([a-z2-7]{16})$/;

export type LinkTokens = ReturnType<typeof createLinkTokens>;

/** `ttlS`: how long an answer link works (ANSWER_LINK_TTL) when `sign` is given no expiry. */
export function createLinkTokens(secret: Buffer, ttlS: number) {
  if (secret.length === 0) throw new Error('the link secret is empty');
  const mac = (purpose: keyof typeof PURPOSE, text: string) =>
    createHmac('sha256', secret).update(PURPOSE[purpose]).update(text, 'utf8').digest();

  /** An answer link's token: `<payload>.<mac>`, both base64url, so it sits in a URL path as is. */
  function sign(claims: { question_id: string; person: string; expires_at?: number }, now: Date = new Date()): string {
    if (!UUID.test(claims.question_id)) throw new Error('an answer link names a question by its uuid');
    if (!PERSON.test(claims.person)) throw new Error('an answer link names a person by a valid name');
    const expires = claims.expires_at ?? Math.floor(now.getTime() / 1000) + ttlS;
    const payload = Buffer.from(
      JSON.stringify({ q: claims.question_id.toLowerCase(), p: claims.person, e: expires }),
      'utf8',
    ).toString('base64url');
    return `${payload}.${mac('answer', payload).toString('base64url')}`;
  }

  /** The claims of a token this secret signed, or why not; the MAC is checked before anything is read. */
  function verify(token: string, now: Date = new Date()): Verified<AnswerLinkClaims> {
    const parts = token.length <= MAX_TOKEN_LENGTH ? token.split('.') : [];
    if (parts.length !== 2 || !parts.every((part) => BASE64URL.test(part))) return { ok: false, reason: 'malformed' };
    const [payload, presented] = parts as [string, string];
    // Compared as text: base64url's spare bits would let two spellings decode to the same bytes.
    if (!sameText(presented, mac('answer', payload).toString('base64url'))) return { ok: false, reason: 'forged' };
    const claims = readClaims(payload);
    if (claims === null) return { ok: false, reason: 'malformed' };
    if (claims.expires_at <= Math.floor(now.getTime() / 1000)) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  /** A reply token: `<base32 id>-<base32 truncated mac>`, lowercase, 43 characters. */
  function signReply(notificationId: string): string {
    if (!UUID.test(notificationId)) throw new Error('a reply token names a notification by its uuid');
    const id = toBase32(Buffer.from(notificationId.replace(/-/g, ''), 'hex'));
    return `${id}-${replyMac(id)}`;
  }

  /** Case-insensitive (MTAs may lower- or upper-case a local part); no expiry of its own. */
  function verifyReply(token: string): Verified<ReplyClaims> {
    const match = REPLY_TOKEN.exec(token.toLowerCase());
    if (!match) return { ok: false, reason: 'malformed' };
    const [, id, presented] = match as unknown as [string, string, string];
    if (!sameText(presented, replyMac(id))) return { ok: false, reason: 'forged' };
    const bytes = fromBase32(id);
    if (bytes === null || toBase32(bytes) !== id) return { ok: false, reason: 'malformed' };
    const hex = bytes.toString('hex');
    return {
      ok: true,
      claims: {
        notification_id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
      },
    };
  }

  function replyMac(id: string): string {
    return toBase32(mac('reply', id).subarray(0, REPLY_MAC_BYTES));
  }

  return { sign, verify, signReply, verifyReply, ttlS };
}

function readClaims(payload: string): AnswerLinkClaims | null {
  try {
    const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { q, p, e } = parsed;
    if (typeof q !== 'string' || !UUID.test(q) || typeof p !== 'string' || !PERSON.test(p)) return null;
    if (typeof e !== 'number' || !Number.isSafeInteger(e)) return null;
    return { question_id: q, person: p, expires_at: e };
  } catch {
    return null;
  }
}

/** Constant time for texts of equal length; a length differs only for a malformed or forged token. */
function sameText(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** RFC 4648 base32, lowercase, without padding. */
export function toBase32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function fromBase32(text: string): Buffer | null {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text) {
    const index = BASE32.indexOf(char);
    if (index === -1) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
