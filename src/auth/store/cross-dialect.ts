// The auth statements, the same SQL on both databases (Kysely writes each in the dialect's own
// syntax). What differs is how a write runs: sqlite.ts and postgres.ts say, and so make one
// complete store each.

import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { AuthStore } from './port.js';

export type Executor = DatabaseHandle;
export type RunOn = <T>(work: (executor: Executor) => Promise<T>) => Promise<T>;

export interface WriteRunners {
  /** Runs one write statement. */
  write: RunOn;
  /** Runs statements that commit together or not at all. */
  unit: RunOn;
}

export function crossDialectAuthStore(db: DatabaseHandle, { write, unit }: WriteRunners): AuthStore {
  return {
    async insertToken(row) {
      await write((x) => x.insertInto('tokens').values(row).execute());
    },

    findTokenByHash(secretHash) {
      return db.selectFrom('tokens').selectAll().where('secret_hash', '=', secretHash).executeTakeFirst();
    },

    findToken(id) {
      return db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
    },

    listTokens() {
      return db.selectFrom('tokens').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    },

    revokeToken(id, at) {
      return unit(async (x) => {
        const found = await x.selectFrom('tokens').select(['id', 'revoked_at']).where('id', '=', id).executeTakeFirst();
        if (!found) return false;
        if (found.revoked_at === null) {
          await x.updateTable('tokens').set({ revoked_at: at }).where('id', '=', id).execute();
        }
        await x.deleteFrom('sessions').where('credential', '=', id).execute();
        return true;
      });
    },

    async touchToken(id, at, notBefore) {
      await write((x) =>
        x
          .updateTable('tokens')
          .set({ last_used_at: at })
          .where('id', '=', id)
          .where((w) => w.or([w('last_used_at', 'is', null), w('last_used_at', '<', notBefore)]))
          .execute(),
      );
    },

    async insertSession(row) {
      await write((x) => x.insertInto('sessions').values(row).execute());
    },

    findSession(idHash) {
      return db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    },

    async deleteSession(idHash) {
      await write((x) => x.deleteFrom('sessions').where('id_hash', '=', idHash).execute());
    },

    async purgeSessions(before) {
      await write((x) => x.deleteFrom('sessions').where('expires_at', '<', before).execute());
    },

    takeBudget(credential, windowStart, limit) {
      return write(async (x) => {
        const row = await x
          .insertInto('classify_budget')
          .values({ credential, window_start: windowStart, used: 1 })
          .onConflict((conflict) =>
            conflict
              .columns(['credential', 'window_start'])
              .doUpdateSet((eb) => ({ used: eb('classify_budget.used', '+', 1) }))
              .where('classify_budget.used', '<', limit),
          )
          .returning('used')
          .executeTakeFirst();
        return row !== undefined;
      });
    },

    async returnBudget(credential, windowStart) {
      await write((x) =>
        x
          .updateTable('classify_budget')
          .set((eb) => ({ used: eb('used', '-', 1) }))
          .where('credential', '=', credential)
          .where('window_start', '=', windowStart)
          .where('used', '>', 0)
          .execute(),
      );
    },

    async purgeBudget(before) {
      await write((x) => x.deleteFrom('classify_budget').where('window_start', '<', before).execute());
    },
  };
}
