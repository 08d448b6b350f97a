import type { Database } from '../../shared/db/database.js';
import { crossDialectA2aStore } from './cross-dialect.js';
import type { A2aStore } from './port.js';

// A2A's statements are the same on both databases: Kysely writes each in the dialect's syntax.

export function createA2aStore(database: Database): A2aStore {
  return crossDialectA2aStore(database.kysely);
}
