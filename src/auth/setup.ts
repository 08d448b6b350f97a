import type { Logger } from 'pino';
import type { Config } from '../shared/config/config.js';
import type { Database } from '../shared/db/database.js';
import type { AccessControlOptions } from './access-hook.js';
import { type Authenticator, createAuthenticator } from './authenticator.js';
import type { AuthStore } from './store/port.js';
import { createAuthStore } from './store/index.js';

export interface AuthParts {
  store: AuthStore;
  authenticator: Authenticator;
  access: AccessControlOptions;
}

/** What each service needs to know its callers; `authenticator.close()` when the app closes. */
export async function createAuthParts(
  config: Readonly<Config>,
  database: Database,
  logger: Logger,
): Promise<AuthParts> {
  const store = createAuthStore(database);
  const authenticator = await createAuthenticator({ config: config.auth, store, database, logger });
  return { store, authenticator, access: { config: config.auth, authenticator } };
}
