import pino from 'pino';
import { ConfigError } from '../shared/config/config.js';
import type { Database } from '../shared/db/database.js';
import { createLogger } from '../shared/observability/logger.js';
import { DatabaseOpenError, openFromEnvironment } from '../shared/process/open-from-env.js';
import { CannotReachError, type CliIo, UsageError } from './context.js';

// The commands that work on the database DATABASE_URL names, with the services' own code and no
// running service: tokens at bootstrap, archives. Loaded only when used.

export async function withDatabase<T>(io: CliIo, work: (database: Database) => Promise<T>): Promise<T> {
  let database: Database;
  try {
    // Migration notices go to stderr: stdout carries only what the command answers.
    ({ database } = await openFromEnvironment(io.env, (config) =>
      createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2)),
    ));
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`configuration error: ${error.message}`);
    if (error instanceof DatabaseOpenError) throw new CannotReachError(error.message);
    throw error;
  }
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}
