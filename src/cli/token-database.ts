import { CreateTokenSchema, type CreateToken } from '../auth/contract.js';
import { createAuthStore, REVOCATIONS_CHANNEL, createTokenService } from '../auth/index.js';
import type { Database } from '../shared/db/database.js';
import { ValidationError } from '../shared/errors.js';
import { createAjv } from '../shared/http/validation.js';
import type { CliIo } from './context.js';
import { withDatabase } from './database.js';
import type { TokenBackend } from './token-backend.js';

// The token commands on the database named by DATABASE_URL, with the services' own code: the
// bootstrap path, needing no running service and no token. Loaded only when used, so the
// other commands start without the database drivers.

/** Created by the command line rather than by a token. */
export const CLI_CREATOR = 'cli';

/** The request schema the API applies, so this path refuses what the API would, in the same words. */
function checkCreate(input: unknown): asserts input is CreateToken {
  const check = createAjv().compile<CreateToken>(CreateTokenSchema);
  if (!check(input)) {
    throw new Error(
      (check.errors ?? []).map((e) => `${e.instancePath.replace(/^\//, '') || 'input'} ${e.message}`).join('; '),
    );
  }
}

function tokenService(database: Database) {
  return createTokenService({
    store: createAuthStore(database),
    // Running instances drop what they cached as soon as they hear of it.
    authenticator: { revoked: () => database.notify(REVOCATIONS_CHANNEL) },
  });
}

function explain(error: unknown): never {
  if (error instanceof ValidationError) throw new Error(error.errors.map((e) => `${e.field} ${e.message}`).join('; '));
  throw error;
}

export function databaseTokens(io: CliIo): TokenBackend {
  return {
    create: (input) => {
      checkCreate(input);
      return withDatabase(io, (database) => tokenService(database).create(input, CLI_CREATOR)).catch(explain);
    },
    list: () => withDatabase(io, (database) => tokenService(database).list()),
    revoke: (id) => withDatabase(io, (database) => tokenService(database).revoke(id)),
  };
}
