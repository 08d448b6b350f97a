import { randomId } from '../shared/db/ids.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import type { Authenticator } from './authenticator.js';
import type { CreateToken, TokenRecord } from './schemas.js';
import type { AuthStore, TokenRow } from './store/port.js';
import { generateToken, hashSecret } from './token-format.js';

export class TokenNotFound extends NotFoundError {
  constructor(id: string) {
    super(`No token with id ${id}`);
  }
}

export interface TokenServiceDeps {
  store: AuthStore;
  authenticator: Pick<Authenticator, 'revoked'>;
  now?: () => Date;
}

/** Roles whose tokens act as one name (items dispatched to it are theirs to move). */
const BOUND_ROLES: readonly string[] = ['agent', 'member'];

export type TokenService = ReturnType<typeof createTokenService>;

export function createTokenService({ store, authenticator, now = () => new Date() }: TokenServiceDeps) {
  /** A new token; the secret is in the answer and nowhere else, ever. */
  async function create(input: CreateToken, createdBy: string): Promise<TokenRecord & { token: string }> {
    const at = now();
    if (input.role === 'agent' && input.agent === undefined) {
      throw ValidationError.of('agent', 'is required for an agent token: it names the one agent the token acts as');
    }
    if (!BOUND_ROLES.includes(input.role) && input.agent !== undefined) {
      throw ValidationError.of('agent', `only agent and member tokens act as a name; a ${input.role} token takes none`);
    }
    let expiresAt: string | null = null;
    if (input.expires_at !== undefined && input.expires_at !== null) {
      const expires = Date.parse(input.expires_at);
      if (!(expires > at.getTime())) throw ValidationError.of('expires_at', 'must be in the future');
      expiresAt = new Date(expires).toISOString();
    }
    const token = generateToken();
    const row: TokenRow = {
      id: randomId(),
      name: input.name,
      role: input.role,
      // A member is bound to a name as an agent is: the one given, else the token's own name.
      agent: input.agent ?? (input.role === 'member' ? input.name : null),
      secret_hash: hashSecret(token),
      created_at: at.toISOString(),
      created_by: createdBy,
      expires_at: expiresAt,
      last_used_at: null,
      revoked_at: null,
    };
    await store.insertToken(row);
    return { ...toRecord(row), token };
  }

  async function list(): Promise<TokenRecord[]> {
    return (await store.listTokens()).map(toRecord);
  }

  async function get(id: string): Promise<TokenRecord> {
    const row = await store.findToken(id);
    if (!row) throw new TokenNotFound(id);
    return toRecord(row);
  }

  /** Revokes at once: this instance forgets it now, the others when the notice reaches them. */
  async function revoke(id: string): Promise<void> {
    if (!(await store.revokeToken(id, now().toISOString()))) throw new TokenNotFound(id);
    await authenticator.revoked();
  }

  return { create, list, get, revoke };
}

export function toRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    agent: row.agent,
    created_at: row.created_at,
    created_by: row.created_by,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}
