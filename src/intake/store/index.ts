// Mail intake's store for a database, on the connection or on a transaction another store
// opened: the port is port.ts, one implementation per database beside it.

import { type Database, type Dialect, DIALECTS } from '../../shared/db/database.js';
import type { IntakeStore, IntakeStoreOn } from './port.js';
import { postgresIntakeStore } from './postgres.js';
import { sqliteIntakeStore } from './sqlite.js';

export function intakeStoreFor(dialect: Dialect): IntakeStoreOn {
  switch (dialect) {
    case DIALECTS.sqlite:
      return sqliteIntakeStore;
    case DIALECTS.postgres:
      return postgresIntakeStore;
    default: {
      const unknown: never = dialect;
      throw new Error(`no intake store for ${String(unknown)}`);
    }
  }
}

export function createIntakeStore(database: Pick<Database, 'kysely' | 'dialect'>): IntakeStore {
  return intakeStoreFor(database.dialect)(database.kysely);
}
