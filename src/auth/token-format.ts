import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

// A token reads `adk_<secret>_<check>`: how one is made, recognised before any database look-up, and
// hashed for storage.

/** A prefix that secret scanners and people recognise. */
export const TOKEN_PREFIX = 'adk_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Base62 characters of secret: 256 bits, more than the 32 bytes asked for. */
const SECRET_LENGTH = 43;
/** The CRC-32 of prefix and secret: a mistyped or truncated token is refused without a database round trip. */
const CHECK_LENGTH = 6;
const TOKEN_RE = new RegExp(`^${TOKEN_PREFIX}([0-9A-Za-z]{${SECRET_LENGTH}})_([0-9A-Za-z]{${CHECK_LENGTH}})$`);
// The largest multiple of 62 a byte can hold: bytes above it are dropped so every character is equally likely.
const UNBIASED_LIMIT = 248;

function base62(value: number, width: number): string {
  let text = '';
  let rest = value;
  for (let i = 0; i < width; i += 1) {
    text = ALPHABET[rest % 62] + text;
    rest = Math.floor(rest / 62);
  }
  return text;
}

function checksum(body: string): string {
  return base62(crc32(body) >>> 0, CHECK_LENGTH);
}

/** Random base62 text of `length` characters, from the system's CSPRNG. */
export function randomBase62(length: number): string {
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) text += ALPHABET[byte % 62];
      if (text.length === length) break;
    }
  }
  return text;
}

export function generateToken(): string {
  const body = `${TOKEN_PREFIX}${randomBase62(SECRET_LENGTH)}`;
  return `${body}_${checksum(body)}`;
}

/** True when `text` has the token's shape and its checksum matches: worth a database look-up. */
export function isWellFormedToken(text: string): boolean {
  const match = TOKEN_RE.exec(text);
  if (!match) return false;
  return match[2] === checksum(`${TOKEN_PREFIX}${match[1]}`);
}

/** What is stored and looked up: the hex SHA-256 of a secret. Random, so a slow password hash would add nothing. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two hex digests of equal length in time that does not depend on where they differ. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
