// The port of identity and access: tokens, browser sessions, the classify budget. Nothing here
// knows a rule; the token service and the access hook do.

import type { Role } from '../roles.js';

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

declare module '../../shared/db/schema.js' {
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
