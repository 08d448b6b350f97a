import type { Database } from '../../../shared/db/database.js';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { OutboxStatements } from './port.js';
import { postgresOutbox } from './postgres.js';
import { sqliteOutbox } from './sqlite.js';

// The one place that looks at the dialect: the outbox's statements on the connection or the
// open transaction given.

export type OutboxStatementsOn = (db: DatabaseHandle) => OutboxStatements;

export function outboxStatementsFor(dialect: Database['dialect']): OutboxStatementsOn {
  return dialect === 'postgres' ? (db) => postgresOutbox(db) : (db) => sqliteOutbox(db);
}
