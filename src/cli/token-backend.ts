import type { CreateToken, TokenRecord } from '../auth/contract.js';
import type { CreatedToken } from '../client/work-client.js';

/** The token commands' operations, over the database (token-database.ts) or over the API (token.ts). */
export interface TokenBackend {
  create(input: CreateToken): Promise<CreatedToken>;
  list(): Promise<TokenRecord[]>;
  revoke(id: string): Promise<void>;
}
