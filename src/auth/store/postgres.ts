// Identity and access on PostgreSQL: a single statement needs no transaction of its own; the
// revocation's statements run in one.

import type { Kysely } from 'kysely';
import { crossDialectAuthStore } from './cross-dialect.js';
import type { AuthStore, AuthTables } from './port.js';

export function createPostgresAuthStore(db: Kysely<AuthTables>): AuthStore {
  return crossDialectAuthStore(db, {
    write: (work) => work(db),
    unit: (work) => db.transaction().execute(work),
  });
}
