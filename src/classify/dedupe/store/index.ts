// Dedupe's memory for a database (the port is port.ts, the rules ../verdict.ts). SQLite: fixed SQL, its units in
// transactions that group commit lets neighbours share. PostgreSQL: batch statements behind the coalescer.

import { type Database, DIALECTS } from '../../../shared/db/database.js';
import { coalesceDedupeStore } from './coalesced.js';
import type { DedupeStore } from './port.js';
import { createPostgresDedupeStore } from './postgres.js';
import { createSqliteDedupeStore } from './sqlite.js';

export function createDedupeStore(
  database: Pick<Database, 'kysely' | 'transaction' | 'dialect' | 'pool'>,
): DedupeStore {
  switch (database.dialect) {
    case DIALECTS.sqlite:
      return createSqliteDedupeStore(database.kysely, database.transaction);
    case DIALECTS.postgres:
      if (!database.pool) throw new Error('the PostgreSQL dedupe store needs the pool');
      return coalesceDedupeStore(createPostgresDedupeStore(database.pool, database.transaction));
    default: {
      const unknown: never = database.dialect;
      throw new Error(`no dedupe store for ${String(unknown)}`);
    }
  }
}
