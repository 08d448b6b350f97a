import type { Database } from '../../shared/db/database.js';
import type { SearchStore } from './port.js';
import { postgresSearchStore } from './postgres.js';
import { sqliteSearchStore } from './sqlite.js';

// The one place that looks at the dialect for search.

export function createSearchStore(database: Database, rankedWindow?: number): SearchStore {
  return database.dialect === 'postgres'
    ? postgresSearchStore(database.kysely, rankedWindow)
    : sqliteSearchStore(database.kysely, rankedWindow);
}
