// The dashboard's numbers for a database: the port is port.ts, one implementation per database
// beside it.

import { type Database, DIALECTS } from '../../../shared/db/database.js';
import type { StatsStore } from './port.js';
import { createPostgresStatsStore } from './postgres.js';
import { createSqliteStatsStore } from './sqlite.js';

export function createStatsStore(database: Pick<Database, 'kysely' | 'transaction' | 'dialect'>): StatsStore {
  switch (database.dialect) {
    case DIALECTS.sqlite:
      return createSqliteStatsStore(database.kysely, database.transaction);
    case DIALECTS.postgres:
      return createPostgresStatsStore(database.kysely);
    default: {
      const unknown: never = database.dialect;
      throw new Error(`no stats store for ${String(unknown)}`);
    }
  }
}
