import { type Database, DIALECTS } from '../shared/db/database.js';
import type { DatabaseHandle } from '../shared/db/schema.js';
import type { Role } from './roles.js';

// The SQL of identity and access: tokens, browser sessions, the classify budget. Nothing here
// knows a rule; the token service and the access hook do.

export interface TokenRow {
  id: string;
  name: string;
  role: Role;
  agent: string | null;
  secret_hash: string;
  created_at: string;
  created_by: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface SessionRow {
  id_hash: string;
  credential: string;
  created_at: string;
  expires_at: string;
}

interface BudgetRow {
  credential: string;
  window_start: string;
  used: number;
}

export interface AuthTables {
  tokens: TokenRow;
  sessions: SessionRow;
  classify_budget: BudgetRow;
}

declare module '../shared/db/schema.js' {
  interface DatabaseSchema extends AuthTables {}
}

/** NOTIFY channel: a token was revoked or a session ended; every instance forgets what it cached. */
export const REVOCATIONS_CHANNEL = 'agentdesk_revocations';

export interface AuthStore {
  insertToken(row: TokenRow): Promise<void>;
  findTokenByHash(secretHash: string): Promise<TokenRow | undefined>;
  findToken(id: string): Promise<TokenRow | undefined>;
  listTokens(): Promise<TokenRow[]>;
  /** Marks the token revoked and ends its sessions; false when no such token exists. */
  revokeToken(id: string, at: string): Promise<boolean>;
  /** Writes last_used_at unless another request (on any instance) did within the last minute. */
  touchToken(id: string, at: string, notBefore: string): Promise<void>;

  insertSession(row: SessionRow): Promise<void>;
  findSession(idHash: string): Promise<SessionRow | undefined>;
  deleteSession(idHash: string): Promise<void>;
  purgeSessions(before: string): Promise<void>;

  /** Counts one call in the window unless `limit` are counted already; false when the budget is spent. */
  takeBudget(credential: string, windowStart: string, limit: number): Promise<boolean>;
  returnBudget(credential: string, windowStart: string): Promise<void>;
  purgeBudget(before: string): Promise<void>;
}

type Executor = DatabaseHandle;

export function createAuthStore(database: Pick<Database, 'kysely' | 'transaction' | 'dialect'>): AuthStore {
  const db = database.kysely;
  // On SQLite writes go through the group commit, sharing an fsync with their neighbours; on
  // PostgreSQL a single statement needs no transaction of its own.
  const write = <T>(work: (executor: Executor) => Promise<T>): Promise<T> =>
    database.dialect === DIALECTS.sqlite ? database.transaction((trx) => work(trx)) : work(db);

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
      const revoke = async (x: Executor) => {
        const found = await x.selectFrom('tokens').select(['id', 'revoked_at']).where('id', '=', id).executeTakeFirst();
        if (!found) return false;
        if (found.revoked_at === null) {
          await x.updateTable('tokens').set({ revoked_at: at }).where('id', '=', id).execute();
        }
        await x.deleteFrom('sessions').where('credential', '=', id).execute();
        return true;
      };
      return database.dialect === DIALECTS.sqlite
        ? database.transaction((trx) => revoke(trx))
        : db.transaction().execute(revoke);
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
