// Mail intake on SQLite: the statements both databases share (cross-dialect.ts); none is
// SQLite's own.

import { crossDialectIntakeStore } from './cross-dialect.js';
import type { IntakeExecutor, IntakeStore } from './port.js';

export function sqliteIntakeStore(db: IntakeExecutor): IntakeStore {
  return crossDialectIntakeStore(db);
}
