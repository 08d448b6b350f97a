import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';

// Every id the desk makes, in one place: random ones for what people name and see, and two
// time-ordered kinds (UUID version 7, RFC 9562) for rows written at a rate or read in order.

/** A random UUID (version 4): items, projects, questions, tokens, mailboxes, process instances. */
export function randomId(): string {
  return randomUUID();
}

// Ids for rows inserted at a high rate that people do not name (dispatch entries): UUID
// version 7 (RFC 9562), whose first 48 bits are the Unix time in milliseconds and the other 74
// random. Rows written together get neighbouring keys, so each insert lands on the primary key's
// rightmost pages instead of a random one: fewer pages dirtied per commit, fewer WAL frames
// written (a raw flood of SQLite inserts ran faster than with version 4 ids), and PostgreSQL's
// full-page images after a checkpoint stay few. The time
// in the id is the row's own creation time, which its readers see anyway. Not for work items:
// the web UI shows their first eight hex digits as a short id, and those are the same for every
// id made in the same 65 seconds.
//
// Built from a version 4 UUID (Node keeps a cache of random bytes for those): its first twelve
// hex digits become the time and its version digit a 7; the variant bits already are RFC 9562's.

/** A version 7 UUID for `at` (an ISO timestamp, or milliseconds since the epoch). */
export function timeOrderedId(at: string | number): string {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  const time = Math.max(0, Math.min(ms, 0xffff_ffff_ffff)).toString(16).padStart(12, '0');
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}

let lastMs = 0;
let counter = 0;

/**
 * A UUID (version 7) that sorts after every one this process made before: the timeline is
 * ordered by (created_at, id), and a question and its comment written in the same millisecond
 * must come back in the order they were written. 48 bits of milliseconds, then a 12-bit counter
 * within the millisecond, then random bits.
 */
export function sequentialId(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    counter += 1;
    if (counter > 0xfff) {
      lastMs += 1;
      counter = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    counter = 0;
  }
  const random = randomUUID().replace(/-/g, '');
  const hex =
    ms.toString(16).padStart(12, '0') +
    '7' +
    counter.toString(16).padStart(3, '0') +
    ((parseInt(random[16]!, 16) & 0x3) | 0x8).toString(16) +
    random.slice(17, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A random (version 4) UUID in SQLite's SQL, for rows written by SQL alone. */
export const RANDOM_UUID_SQL = sql`lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
  substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
