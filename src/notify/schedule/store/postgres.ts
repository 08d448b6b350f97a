import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { ScheduleStatements } from './port.js';
import { crossDialectSchedule } from './cross-dialect.js';

// The scheduler on PostgreSQL: instances share digest_runs; the primary key settles which
// instance's insert of a day counts (the other waits for its commit, then inserts nothing).

export function postgresSchedule(db: DatabaseHandle): ScheduleStatements {
  return crossDialectSchedule(db);
}
