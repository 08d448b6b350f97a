// Identity and access on SQLite: every write, a single statement too, goes through the group
// commit and so shares an fsync with its neighbours.

import type { Kysely, Transaction } from 'kysely';
import type { TransactionRunner } from '../../shared/db/group-commit.js';
import { type RunOn, crossDialectAuthStore } from './cross-dialect.js';
import type { AuthStore, AuthTables } from './port.js';

export function createSqliteAuthStore(db: Kysely<AuthTables>, transaction: TransactionRunner): AuthStore {
  const inTransaction: RunOn = (work) => transaction((trx) => work(trx as Transaction<AuthTables>));
  return crossDialectAuthStore(db, { write: inTransaction, unit: inTransaction });
}
