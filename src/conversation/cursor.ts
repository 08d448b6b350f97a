import { ValidationError } from '../shared/errors.js';
import type { Position } from './store/port.js';

// A conversation cursor: the last row's (time, id), and what it lists, base64url-encoded so
// clients treat it as opaque. A cursor of one listing is refused by another.

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodePosition(listing: string, position: Position): string {
  return Buffer.from(JSON.stringify([listing, position.at, position.id])).toString('base64url');
}

export function decodePosition(cursor: string, listing: string): Position {
  const invalid = () => ValidationError.of('cursor', 'is not a cursor this listing produced');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw invalid();
  const [what, at, id] = parsed as unknown[];
  if (what !== listing) throw invalid();
  if (typeof at !== 'string' || !ISO_UTC.test(at) || new Date(Date.parse(at)).toISOString() !== at) throw invalid();
  if (typeof id !== 'string' || !UUID.test(id)) throw invalid();
  return { at, id };
}
