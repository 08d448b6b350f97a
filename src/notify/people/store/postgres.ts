// People on PostgreSQL: a single statement needs no transaction of its own; a put's two run in one.

import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { crossDialectPeopleStore } from './cross-dialect.js';
import type { PeopleStore } from './port.js';

export function createPostgresPeopleStore(db: DatabaseHandle): PeopleStore {
  return crossDialectPeopleStore(db, {
    write: (work) => work(db),
    unit: (work) => db.transaction().execute(work),
  });
}
