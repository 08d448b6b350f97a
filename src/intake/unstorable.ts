// Errors that say the database refused what one message would write (its data, not the database's
// health). Such a message is recorded as failed and its mailbox goes on (pipeline.ts); any other
// error (the database gone, a lost lease) stops the run, to be tried again as a whole.

interface CodedError {
  code?: unknown;
}

const SQLITE_DATA_CODES = new Set([
  'SQLITE_TOOBIG',
  'SQLITE_MISMATCH',
  'SQLITE_CONSTRAINT_CHECK',
  'SQLITE_CONSTRAINT_NOTNULL',
  'SQLITE_RANGE',
]);

/** A text PostgreSQL cannot encode, a value too long for an index, a check that fails. */
export function isUnstorable(error: unknown): boolean {
  const code = (error as CodedError | null)?.code;
  if (typeof code !== 'string') return false;
  // PostgreSQL: class 22 is "data exception" (encodings, escapes, lengths), 23502/23514 a null
  // or a check refused, 54000 a value past a limit (an index entry too large, say).
  if (/^22[0-9A-Z]{3}$/.test(code)) return true;
  if (code === '23502' || code === '23514' || code === '54000') return true;
  return SQLITE_DATA_CODES.has(code);
}
