import { ValidationError } from '../shared/errors.js';
import type { SortOrder } from './schemas.js';
import type { PagePosition } from './store/port.js';

// A cursor is the last row's sort key, base64url-encoded so clients treat it as opaque.

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(order: SortOrder, row: PagePosition): string {
  return Buffer.from(JSON.stringify([order, row.created_at, row.id, row.priority])).toString('base64url');
}

export function decodeCursor(cursor: string, order: SortOrder): PagePosition {
  const invalid = () => ValidationError.of('cursor', 'is not a cursor this listing produced');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw invalid();
  const [cursorOrder, created_at, id, priority] = parsed as unknown[];
  if (cursorOrder !== order) {
    throw ValidationError.of('cursor', `belongs to sort=${String(cursorOrder)}, not sort=${order}`);
  }
  // The shape alone lets "2024-99-99T99:99:99.999Z" through, which PostgreSQL refuses (a 500)
  // and SQLite compares as text: only a time that reads back as itself came from a listing.
  if (typeof created_at !== 'string' || !ISO_UTC.test(created_at) || !isRealTime(created_at)) throw invalid();
  if (typeof id !== 'string' || !UUID.test(id)) throw invalid();
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 1 || priority > 5) throw invalid();
  return { created_at, id, priority };
}

/** Year 1 on: PostgreSQL has no year 0 in ISO form. */
const FIRST_TIME = Date.parse('0001-01-01T00:00:00.000Z');

function isRealTime(text: string): boolean {
  const at = Date.parse(text);
  return at >= FIRST_TIME && new Date(at).toISOString() === text;
}
