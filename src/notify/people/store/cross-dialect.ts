// The people statements, the same SQL on both databases (Kysely writes each in the dialect's
// own syntax). What differs is how a write runs: sqlite.ts and postgres.ts say.

import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { PeopleStore, PersonRow } from './port.js';

export type RunOn = <T>(work: (executor: DatabaseHandle) => Promise<T>) => Promise<T>;

export interface WriteRunners {
  /** Runs one write statement. */
  write: RunOn;
  /** Runs statements that commit together or not at all. */
  unit: RunOn;
}

/** The profiles of `names` that exist, by name, read on `db` (the caller's transaction, if it is one). */
export async function findPeopleOn(db: DatabaseHandle, names: readonly string[]): Promise<PersonRow[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom('people')
    .selectAll()
    .where('name', 'in', [...names])
    .orderBy('name')
    .execute();
}

export function crossDialectPeopleStore(db: DatabaseHandle, { write, unit }: WriteRunners): PeopleStore {
  return {
    put(row) {
      // Insert-or-nothing first: two instances putting one new name at once both end in a write.
      return unit(async (x) => {
        const inserted = await x
          .insertInto('people')
          .values(row)
          .onConflict((conflict) => conflict.column('name').doNothing())
          .returningAll()
          .executeTakeFirst();
        if (inserted) return { person: inserted, created: true };
        const { name, created_at: _keep, ...changes } = row;
        const updated = await x
          .updateTable('people')
          .set(changes)
          .where('name', '=', name)
          .returningAll()
          .executeTakeFirstOrThrow();
        return { person: updated, created: false };
      });
    },

    find(name) {
      return db.selectFrom('people').selectAll().where('name', '=', name).executeTakeFirst();
    },

    list() {
      return db.selectFrom('people').selectAll().orderBy('name').execute();
    },

    remove(name) {
      return write(async (x) => {
        const gone = await x.deleteFrom('people').where('name', '=', name).returning('name').executeTakeFirst();
        return gone !== undefined;
      });
    },
  };
}
