// Identity and access on SQLite: every write, a single statement too, goes through the group
// commit and so shares an fsync with its neighbours.

import type { TransactionRunner } from '../../shared/db/group-commit.js';
import { type RunOn, crossDialectAuthStore } from './cross-dialect.js';
import type { AuthStore } from './port.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';

export function createSqliteAuthStore(db: DatabaseHandle, transaction: TransactionRunner): AuthStore {
  const inTransaction: RunOn = (work) => transaction((trx) => work(trx));
  return crossDialectAuthStore(db, { write: inTransaction, unit: inTransaction });
}
