import type { Logger } from 'pino';
import { type Config, loadConfig } from '../config/config.js';
import { type Database, openDatabase } from '../db/database.js';

// What every process's main does first (`npm start`, `agentdesk serve`, the CLI's token
// commands): read the configuration from the environment, then open (and migrate) the
// database it names. Each caller turns the two failures into its own exit.

/** The database named by DATABASE_URL could not be opened; the message names the setting, never its value. */
export class DatabaseOpenError extends Error {
  constructor(cause: unknown) {
    // A PostgreSQL URL may carry a password: the driver's message, not the URL.
    super(`cannot open the database named by DATABASE_URL: ${(cause as Error).message}`, { cause });
    this.name = 'DatabaseOpenError';
  }
}

export interface Opened {
  config: Readonly<Config>;
  logger: Logger;
  database: Database;
}

/**
 * Loads the configuration from `env` (a ConfigError names the bad variable), builds the logger
 * from it, lets `beforeOpen` act on the environment with that logger, and opens the database
 * (a DatabaseOpenError when it cannot be).
 */
export async function openFromEnvironment(
  env: NodeJS.ProcessEnv,
  createLogger: (config: Readonly<Config>) => Logger,
  beforeOpen?: (logger: Logger) => void,
): Promise<Opened> {
  const config = loadConfig(env);
  const logger = createLogger(config);
  beforeOpen?.(logger);
  let database: Database;
  try {
    database = await openDatabase(config.database, { logger });
  } catch (error) {
    throw new DatabaseOpenError(error);
  }
  return { config, logger, database };
}
