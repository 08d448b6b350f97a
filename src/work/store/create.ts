import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../shared/db.js';
import type { WorkTables } from '../tables.js';
import { batched } from './batched.js';
import { createCoalescer } from '../../shared/coalesce.js';
import type { CommitListener, NewItem, WorkStore } from './port.js';
import { postgresStatements, runOn, runOnPool } from './postgres.js';
import { sqliteStatements } from './sqlite.js';
import { transactional } from './transactional.js';

// The work store as the apps get it: the implementation for the database, made a store by the
// transactional decorator, and batched on PostgreSQL. The one place that looks at the dialect.
//
// On SQLite the new items that arrive while one batch of them is being written go in together as
// the next, one transaction of a few multi-row INSERTs (createWorkItems) instead of one per item:
// every statement of a transaction is a round trip to the writer thread (shared/sqlite-writer.ts),
// and under a flood of POST /work those round trips, not the disk, were what bounded the rate.

/**
 * `onEventsCommitted` runs after every commit that appended at least one event, so the event
 * hub learns of new events, and the waiting claims of what became claimable (claimable.ts), in
 * one place whichever service wrote them.
 */
export function createWorkStore(database: Database, onEventsCommitted: CommitListener = () => {}): WorkStore {
  const kysely = database.kysely as Kysely<WorkTables>;
  const runTransaction = database.transaction;
  if (database.dialect === 'postgres') {
    const top = postgresStatements(kysely, runOnPool(database.pool as pg.Pool));
    const store = transactional({ top, on: (trx) => postgresStatements(trx, runOn(trx)), runTransaction, onEventsCommitted });
    return batched(store, top, onEventsCommitted);
  }
  const store = transactional({ top: sqliteStatements(kysely), on: (trx) => sqliteStatements(trx), runTransaction, onEventsCommitted });
  // A batch that fails (one item's unknown project) runs again one item at a time (coalesce.ts).
  const create = createCoalescer({
    keyOf: () => 'create',
    run: async (items: NewItem[]) => {
      await store.createWorkItems(items);
      return items.map(() => undefined);
    },
  });
  return { ...store, createWorkItem: (row, dispatch, event, history) => create({ row, dispatch, event, history }) };
}
