import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { Database } from '../shared/db.js';
import type { HttpApp } from '../shared/http.js';
import type { WorkStore } from '../work/store.js';
import { DEFAULT_TIMEOUTS } from './imap/connection.js';
import { createMailboxService } from './mailbox-service.js';
import { registerMailboxRoutes } from './routes.js';
import { createSecretBox } from './secrets.js';
import { createIntakeStore } from './store.js';

export interface IntakeDeps {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
  /** The work service's store: work items are created in the same transaction as the log entry. */
  workStore: WorkStore;
}

/** Mail intake inside the work service: the mailbox routes, and the watchers while the app runs. */
export function registerIntake(app: HttpApp, { config, database, workStore }: IntakeDeps): void {
  const store = createIntakeStore(database);
  const mailboxes = createMailboxService({
    store,
    workStore,
    secrets: createSecretBox(config.intake.secretKey),
    timeouts: DEFAULT_TIMEOUTS,
    onChange: () => undefined,
  });
  registerMailboxRoutes(app, mailboxes);
}
