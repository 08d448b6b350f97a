import { ValidationError } from '../errors.js';

// Keyset paging, shared by every listing (work items, comments and questions, a mailbox's
// messages): the opaque cursor a page hands out, the checks its parts pass before they reach
// SQL, and the Link header that names the next page.

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Year 1 on: PostgreSQL has no year 0 in ISO form. */
const FIRST_TIME = Date.parse('0001-01-01T00:00:00.000Z');

/** The cursor of a page: its sort key's parts, base64url-encoded so clients treat it as opaque. */
export function encodeCursorParts(parts: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

export const invalidCursor = (): ValidationError =>
  ValidationError.of('cursor', 'is not a cursor this listing produced');

/** The parts of a cursor made by encodeCursorParts with `length` parts, else a 422. */
export function decodeCursorParts(cursor: string, length: number): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== length) throw invalidCursor();
  return parsed as unknown[];
}

/**
 * A time a listing wrote: the shape alone lets "2024-99-99T99:99:99.999Z" (and year 0) through,
 * which PostgreSQL refuses (a 500) and SQLite compares as text; only a time that reads back as
 * itself, from year 1 on, came from a listing.
 */
export function isListedTime(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_UTC.test(value)) return false;
  const at = Date.parse(value);
  return at >= FIRST_TIME && new Date(at).toISOString() === value;
}

export function isListedId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** The next page's address: the same request with the cursor moved on (a `Link: rel="next"` value). */
export function nextLink(url: string, query: Record<string, unknown>, cursor: string): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (key !== 'cursor' && value !== undefined) params.set(key, String(value));
  }
  params.set('cursor', cursor);
  return `<${url.split('?')[0]}?${params.toString()}>; rel="next"`;
}
