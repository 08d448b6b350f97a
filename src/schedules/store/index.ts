import type { Database } from '../../shared/db/database.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { ScheduleStatements } from './port.js';
import { postgresSchedules } from './postgres.js';
import { sqliteSchedules } from './sqlite.js';

// The one place that looks at the dialect: the schedules' statements on the connection or the
// open transaction given.

export type ScheduleStatementsOn = (db: DatabaseHandle) => ScheduleStatements;

export function scheduleStatementsFor(dialect: Database['dialect']): ScheduleStatementsOn {
  return dialect === 'postgres' ? (db) => postgresSchedules(db) : (db) => sqliteSchedules(db);
}
