// People on SQLite: every write goes through the group commit and so shares an fsync with its
// neighbours.

import type { TransactionRunner } from '../../../shared/db/group-commit.js';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { type RunOn, crossDialectPeopleStore } from './cross-dialect.js';
import type { PeopleStore } from './port.js';

export function createSqlitePeopleStore(db: DatabaseHandle, transaction: TransactionRunner): PeopleStore {
  const inTransaction: RunOn = (work) => transaction((trx) => work(trx));
  return crossDialectPeopleStore(db, { write: inTransaction, unit: inTransaction });
}
