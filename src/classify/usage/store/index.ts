// LLM usage's read for a database: the port is port.ts (with the rows an event
// writes, which the dedupe stores write), one implementation per database beside it.

import { type Database, DIALECTS } from '../../../shared/db/database.js';
import type { UsageStore } from './port.js';
import { createPostgresUsageStore } from './postgres.js';
import { createSqliteUsageStore } from './sqlite.js';

export function createUsageStore(database: Pick<Database, 'kysely' | 'dialect'>): UsageStore {
  switch (database.dialect) {
    case DIALECTS.sqlite:
      return createSqliteUsageStore(database.kysely);
    case DIALECTS.postgres:
      return createPostgresUsageStore(database.kysely);
    default: {
      const unknown: never = database.dialect;
      throw new Error(`no usage store for ${String(unknown)}`);
    }
  }
}
