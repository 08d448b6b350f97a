// Mail intake on PostgreSQL: the statements both databases share (cross-dialect.ts); none is
// PostgreSQL's own.

import { crossDialectIntakeStore } from './cross-dialect.js';
import type { IntakeExecutor, IntakeStore } from './port.js';

export function postgresIntakeStore(db: IntakeExecutor): IntakeStore {
  return crossDialectIntakeStore(db);
}
