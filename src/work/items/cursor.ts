import { ValidationError } from '../../shared/errors.js';
import {
  decodeCursorParts,
  encodeCursorParts,
  invalidCursor,
  isListedId,
  isListedTime,
} from '../../shared/http/paging.js';
import type { SortOrder } from '../api-contract.js';
import type { PagePosition } from '../store/port.js';

// A cursor of /work is the last row's sort key and the sort it belongs to (shared/paging.ts).

export function encodeCursor(order: SortOrder, row: PagePosition): string {
  return encodeCursorParts([order, row.created_at, row.id, row.priority]);
}

export function decodeCursor(cursor: string, order: SortOrder): PagePosition {
  const [cursorOrder, created_at, id, priority] = decodeCursorParts(cursor, 4);
  if (cursorOrder !== order) {
    throw ValidationError.of('cursor', `belongs to sort=${String(cursorOrder)}, not sort=${order}`);
  }
  if (!isListedTime(created_at) || !isListedId(id)) throw invalidCursor();
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 1 || priority > 5)
    throw invalidCursor();
  return { created_at, id, priority };
}
