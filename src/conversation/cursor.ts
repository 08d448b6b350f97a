import {
  decodeCursorParts,
  encodeCursorParts,
  invalidCursor,
  isListedId,
  isListedTime,
} from '../shared/http/paging.js';
import type { Position } from './store/port.js';

// A conversation cursor: the last row's (time, id), and what it lists, so a cursor of one
// listing is refused by another.

export function encodePosition(listing: string, position: Position): string {
  return encodeCursorParts([listing, position.at, position.id]);
}

export function decodePosition(cursor: string, listing: string): Position {
  const [what, at, id] = decodeCursorParts(cursor, 3);
  if (what !== listing || !isListedTime(at) || !isListedId(id)) throw invalidCursor();
  return { at, id };
}
