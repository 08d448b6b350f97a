import type { Database } from '../../../shared/db/database.js';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { ScheduleStatements } from './port.js';
import { postgresSchedule } from './postgres.js';
import { sqliteSchedule } from './sqlite.js';

// The one place that looks at the dialect: the scheduler's statements on a connection or transaction.

export type ScheduleStatementsOn = (db: DatabaseHandle) => ScheduleStatements;

export function scheduleStatementsFor(dialect: Database['dialect']): ScheduleStatementsOn {
  return dialect === 'postgres' ? (db) => postgresSchedule(db) : (db) => sqliteSchedule(db);
}
