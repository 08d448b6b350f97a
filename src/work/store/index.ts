import type pg from 'pg';
import type { Database } from '../../shared/db/database.js';
import { batched } from './batched.js';
import type { DependentNotes } from './dependencies-port.js';
import type { CommitListener, FinishedHook, WorkStore } from './port.js';
import { postgresStatements, runOn, runOnPool } from './postgres.js';
import { sqliteStatements } from './sqlite.js';
import { transactional } from './transactional.js';

// The work store as the apps get it: the implementation for the database, made a store by the
// transactional decorator, and batched on PostgreSQL. The one place that looks at the dialect.

/**
 * `notes` writes the notes an item's end leaves on its dependents' timelines (the conversation
 * implements it). `onEventsCommitted` runs after every commit that appended at least one event, so the event
 * hub learns of new events, and the waiting claims of what became claimable (claimable.ts), in
 * one place whichever service wrote them.
 */
export function createWorkStore(
  database: Database,
  notes: DependentNotes,
  onEventsCommitted: CommitListener = () => {},
  onFinished?: FinishedHook,
): WorkStore {
  const kysely = database.kysely;
  const runTransaction = database.transaction;
  const hooks = { onEventsCommitted, ...(onFinished && { onFinished }) };
  if (database.dialect === 'postgres') {
    const top = postgresStatements(kysely, runOnPool(database.pool as pg.Pool), notes);
    const store = transactional({
      top,
      on: (trx) => postgresStatements(trx, runOn(trx), notes),
      runTransaction,
      ...hooks,
    });
    return batched(store, top, onEventsCommitted, onFinished !== undefined);
  }
  return transactional({
    top: sqliteStatements(kysely, notes),
    on: (trx) => sqliteStatements(trx, notes),
    runTransaction,
    ...hooks,
  });
}
