import type { Logger } from 'pino';
import type { AuthConfig } from '../shared/config/config.js';
import type { Database } from '../shared/db/database.js';
import type { Role } from './roles.js';
import { REVOCATIONS_CHANNEL, type AuthStore, type SessionRow, type TokenRow } from './store/port.js';
import { hashSecret, isWellFormedToken, randomBase62, sameDigest } from './token-format.js';

// Turns what a request presents (a bearer token or a session cookie) into the caller, or into nothing.

/** The caller, as every route and service sees it. */
export interface Principal {
  /** The agent name of an agent token, else the token's name; under AUTH=off, X-User. */
  name: string;
  role: Role;
  /** The only name an agent or member token may act as (items dispatched to it); null for every other role. */
  agent: string | null;
  /** The token's id; `env` for AGENTDESK_ADMIN_TOKEN; null under AUTH=off. */
  token_id: string | null;
}

/** How a request proved who it is, kept so a long-lived stream can be checked again. */
export type Proof = { kind: 'bearer'; hash: string } | { kind: 'session'; idHash: string };

export interface Identity {
  principal: Principal;
  /** What a session or a budget is attached to: the token id, or `env:…` for the admin variable. */
  credential: string;
  /** When the credential stops working; null when it does not expire. */
  expires_at: string | null;
}

export const ENV_ADMIN_NAME = 'admin';
/**
 * Answers are cached per instance; a revocation empties the cache here at once and, through NOTIFY, on every
 * other instance. This short lifetime bounds how long a lost notification can matter.
 */
const CACHE_MS = 500;
const CACHE_MAX = 10_000;
const TOUCH_EVERY_MS = 60_000;
const MAX_CREDENTIAL_LENGTH = 1_024;
const SESSION_ID_LENGTH = 43;

export interface Authenticator {
  /** The identity behind a bearer token, or null: missing, malformed, unknown, expired or revoked alike. */
  bearer(token: string): Promise<{ identity: Identity; proof: Proof } | null>;
  session(sessionId: string): Promise<{ identity: Identity; proof: Proof } | null>;
  /** Checks again what a request proved earlier (for streams that outlive a revocation). */
  recheck(proof: Proof): Promise<boolean>;
  startSession(identity: Identity, ttlMs: number): Promise<{ id: string; expires_at: string; max_age_seconds: number }>;
  endSession(sessionId: string): Promise<void>;
  /** Forget every cached answer here and on every other instance. */
  revoked(): Promise<void>;
  /** Calls `listener` after every revocation seen by this instance. */
  onRevocation(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface AuthenticatorDeps {
  config: AuthConfig;
  store: AuthStore;
  database: Pick<Database, 'listen' | 'notify'>;
  logger: Logger;
  now?: () => Date;
}

interface Cached<T> {
  value: T;
  at: number;
}

function envCredential(hash: string): string {
  // A prefix of the hash names the variable's value without storing it: changing the variable ends its sessions.
  return `env:${hash.slice(0, 16)}`;
}

export function principalOf(row: Pick<TokenRow, 'id' | 'name' | 'role' | 'agent'>): Principal {
  return { name: row.agent ?? row.name, role: row.role, agent: row.agent, token_id: row.id };
}

export async function createAuthenticator(deps: AuthenticatorDeps): Promise<Authenticator> {
  const { config, store, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const tokens = new Map<string, Cached<TokenRow>>();
  const sessions = new Map<string, Cached<SessionRow>>();
  const touched = new Map<string, number>();
  const listeners = new Set<() => void>();

  const forget = () => {
    tokens.clear();
    sessions.clear();
    for (const listener of listeners) listener();
  };
  const unlisten = await deps.database.listen(REVOCATIONS_CHANNEL, forget);

  function remember<T>(cache: Map<string, Cached<T>>, key: string, value: T): void {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, { value, at: Date.now() });
  }

  function fresh<T>(cache: Map<string, Cached<T>>, key: string): T | undefined {
    const entry = cache.get(key);
    if (entry && Date.now() - entry.at < CACHE_MS) return entry.value;
    if (entry) cache.delete(key);
    return undefined;
  }

  const envIdentity = (): Identity | null =>
    config.adminTokenHash === null
      ? null
      : {
          principal: { name: ENV_ADMIN_NAME, role: 'admin', agent: null, token_id: 'env' },
          credential: envCredential(config.adminTokenHash),
          expires_at: null,
        };

  function usable(row: TokenRow, at: Date): boolean {
    return row.revoked_at === null && (row.expires_at === null || Date.parse(row.expires_at) > at.getTime());
  }

  function touch(row: TokenRow, at: Date): void {
    const last = Math.max(touched.get(row.id) ?? 0, row.last_used_at ? Date.parse(row.last_used_at) : 0);
    if (at.getTime() - last < TOUCH_EVERY_MS) return;
    if (touched.size >= CACHE_MAX) touched.clear();
    touched.set(row.id, at.getTime());
    const notBefore = new Date(at.getTime() - TOUCH_EVERY_MS).toISOString();
    store.touchToken(row.id, at.toISOString(), notBefore).catch((error: unknown) => {
      logger.warn({ err: { message: (error as Error).message } }, 'token last_used_at not written');
    });
  }

  function identityOf(row: TokenRow): Identity {
    return { principal: principalOf(row), credential: row.id, expires_at: row.expires_at };
  }

  async function tokenByHash(hash: string): Promise<TokenRow | null> {
    const key = `h:${hash}`;
    let row = fresh(tokens, key);
    if (!row) {
      row = await store.findTokenByHash(hash);
      // Unknown tokens are not cached: anyone can make up well-formed ones to fill the cache.
      if (!row) return null;
      remember(tokens, key, row);
    }
    return sameDigest(row.secret_hash, hash) ? row : null;
  }

  async function tokenById(id: string): Promise<TokenRow | null> {
    const key = `i:${id}`;
    let row = fresh(tokens, key);
    if (!row) {
      row = await store.findToken(id);
      if (!row) return null;
      remember(tokens, key, row);
    }
    return row;
  }

  async function byHash(hash: string, wellFormed: boolean): Promise<Identity | null> {
    const env = envIdentity();
    if (env && sameDigest(hash, config.adminTokenHash as string)) return env;
    // Refused before any database look-up: a typo, a truncation, a made-up string.
    if (!wellFormed) return null;
    const row = await tokenByHash(hash);
    const at = now();
    if (!row || !usable(row, at)) return null;
    touch(row, at);
    return identityOf(row);
  }

  async function bySession(idHash: string): Promise<Identity | null> {
    let session = fresh(sessions, idHash);
    if (!session) {
      session = await store.findSession(idHash);
      if (!session) return null;
      remember(sessions, idHash, session);
    }
    const at = now();
    if (Date.parse(session.expires_at) <= at.getTime()) return null;
    if (session.credential.startsWith('env:')) {
      const env = envIdentity();
      return env && env.credential === session.credential ? env : null;
    }
    const row = await tokenById(session.credential);
    if (!row || !usable(row, at)) return null;
    touch(row, at);
    return identityOf(row);
  }

  async function revoked(): Promise<void> {
    forget();
    await deps.database.notify(REVOCATIONS_CHANNEL).catch((error: unknown) => {
      // The other instances' caches expire within CACHE_MS anyway.
      logger.warn({ err: { message: (error as Error).message } }, 'revocation notice not sent');
    });
  }

  return {
    async bearer(token) {
      if (token.length === 0 || token.length > MAX_CREDENTIAL_LENGTH) return null;
      const hash = hashSecret(token);
      const identity = await byHash(hash, isWellFormedToken(token));
      return identity && { identity, proof: { kind: 'bearer', hash } };
    },

    async session(sessionId) {
      if (!/^[0-9A-Za-z]{43}$/.test(sessionId)) return null;
      const idHash = hashSecret(sessionId);
      const identity = await bySession(idHash);
      return identity && { identity, proof: { kind: 'session', idHash } };
    },

    async recheck(proof) {
      if (proof.kind === 'bearer') return (await byHash(proof.hash, true)) !== null;
      return (await bySession(proof.idHash)) !== null;
    },

    async startSession(identity, ttlMs) {
      const at = now();
      let expires = at.getTime() + ttlMs;
      if (identity.expires_at !== null) expires = Math.min(expires, Date.parse(identity.expires_at));
      const id = randomBase62(SESSION_ID_LENGTH);
      const row: SessionRow = {
        id_hash: hashSecret(id),
        credential: identity.credential,
        created_at: at.toISOString(),
        expires_at: new Date(expires).toISOString(),
      };
      await store.insertSession(row);
      // Sign-ins are rare: a good moment to drop the sessions that ended.
      store.purgeSessions(at.toISOString()).catch(() => undefined);
      return {
        id,
        expires_at: row.expires_at,
        max_age_seconds: Math.max(0, Math.floor((expires - at.getTime()) / 1000)),
      };
    },

    async endSession(sessionId) {
      if (!/^[0-9A-Za-z]{43}$/.test(sessionId)) return;
      await store.deleteSession(hashSecret(sessionId));
      await revoked();
    },

    revoked,

    onRevocation(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async close() {
      listeners.clear();
      await unlisten();
    },
  };
}
