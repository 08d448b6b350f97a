// The event log's reading side for a database: the port is port.ts, one implementation per
// database beside it.

import { type Database, DIALECTS } from '../../../shared/db/database.js';
import type { EventLog } from './port.js';
import { createPostgresEventLog } from './postgres.js';
import { createSqliteEventLog } from './sqlite.js';

export function createEventLog(database: Pick<Database, 'kysely' | 'dialect'>): EventLog {
  const db = database.kysely;
  switch (database.dialect) {
    case DIALECTS.sqlite:
      return createSqliteEventLog(db);
    case DIALECTS.postgres:
      return createPostgresEventLog(db);
    default: {
      const unknown: never = database.dialect;
      throw new Error(`no event log for ${String(unknown)}`);
    }
  }
}
