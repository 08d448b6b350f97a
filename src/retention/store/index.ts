import type { Database } from '../../shared/db/database.js';
import { crossDialectRetentionStore } from './cross-dialect.js';
import type { RetentionStore } from './port.js';

// Retention's statements are the same on both databases: Kysely writes each in the dialect's syntax.

export function createRetentionStore(database: Pick<Database, 'kysely' | 'transaction'>): RetentionStore {
  return crossDialectRetentionStore(database);
}
