// Identity and access for a database: the port is port.ts, one store per database beside it
// over the statements both share (cross-dialect.ts).

import { type Database, DIALECTS } from '../../shared/db/database.js';
import type { AuthStore } from './port.js';
import { createPostgresAuthStore } from './postgres.js';
import { createSqliteAuthStore } from './sqlite.js';

export function createAuthStore(database: Pick<Database, 'kysely' | 'transaction' | 'dialect'>): AuthStore {
  const db = database.kysely;
  switch (database.dialect) {
    case DIALECTS.sqlite:
      return createSqliteAuthStore(db, database.transaction);
    case DIALECTS.postgres:
      return createPostgresAuthStore(db);
    default: {
      const unknown: never = database.dialect;
      throw new Error(`no auth store for ${String(unknown)}`);
    }
  }
}
