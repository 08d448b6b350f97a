// People's profiles in a database: the port is port.ts, one store per database beside it over
// the statements both share (cross-dialect.ts).

import { type Database, DIALECTS } from '../../../shared/db/database.js';
import type { PeopleStore } from './port.js';
import { createPostgresPeopleStore } from './postgres.js';
import { createSqlitePeopleStore } from './sqlite.js';

export function createPeopleStore(database: Pick<Database, 'kysely' | 'transaction' | 'dialect'>): PeopleStore {
  switch (database.dialect) {
    case DIALECTS.sqlite:
      return createSqlitePeopleStore(database.kysely, database.transaction);
    case DIALECTS.postgres:
      return createPostgresPeopleStore(database.kysely);
    default: {
      const unknown: never = database.dialect;
      throw new Error(`no people store for ${String(unknown)}`);
    }
  }
}
