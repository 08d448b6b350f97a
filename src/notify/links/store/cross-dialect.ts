import type { DatabaseHandle } from '../../../shared/db/schema.js';
import '../tables.js';
import type { SecretStatements } from './port.js';

// The secret's statements, the same SQL on SQLite and PostgreSQL (INSERT … ON CONFLICT DO
// NOTHING on both): the whole store of either database, so index.ts gives this one to both.

export function crossDialectSecretStatements(db: DatabaseHandle): SecretStatements {
  return {
    async insertIfAbsent(row) {
      // DO NOTHING, not the unique violation: a second instance racing the first just reads its row.
      await db
        .insertInto('app_secrets')
        .values(row)
        .onConflict((conflict) => conflict.column('name').doNothing())
        .execute();
    },

    async read(name) {
      const row = await db.selectFrom('app_secrets').select('value').where('name', '=', name).executeTakeFirst();
      return row?.value;
    },

    async replace(name, current, next) {
      await db
        .updateTable('app_secrets')
        .set({ value: next })
        .where('name', '=', name)
        .where('value', '=', current)
        .execute();
    },
  };
}
