import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { ScheduleStatements } from './port.js';
import { crossDialectSchedule } from './cross-dialect.js';

// The scheduler on SQLite: one writer at a time, so the claim's insert needs nothing more.

export function sqliteSchedule(db: DatabaseHandle): ScheduleStatements {
  return crossDialectSchedule(db);
}
