// Identity and access on PostgreSQL: a single statement needs no transaction of its own; the
// revocation's statements run in one.

import { crossDialectAuthStore } from './cross-dialect.js';
import type { AuthStore } from './port.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';

export function createPostgresAuthStore(db: DatabaseHandle): AuthStore {
  return crossDialectAuthStore(db, {
    write: (work) => work(db),
    unit: (work) => db.transaction().execute(work),
  });
}
