import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { type Command, Option } from 'commander';
import pino from 'pino';
import { CreateTokenSchema, type CreateToken } from '../auth/schemas.js';
import { REVOCATIONS_CHANNEL, createAuthStore } from '../auth/store.js';
import { createTokenService } from '../auth/token-service.js';
import { ROLES } from '../auth/roles.js';
import { ConfigError, loadConfig } from '../shared/config.js';
import { type Database, openDatabase } from '../shared/db.js';
import { ValidationError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';

// `agentdesk token create|list|revoke`: tokens written straight to the database named by
// DATABASE_URL. `create` prints the secret alone on stdout (so `TOKEN=$(agentdesk token
// create …)` works) and what it made on stderr; the secret is never shown again.

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
}

type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)) as AddFormats;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const checkCreate = ajv.compile<CreateToken>(CreateTokenSchema);

/** Created by the command line rather than by a token. */
export const CLI_CREATOR = 'cli';

async function withDatabase<T>(io: CliIo, work: (database: Database) => Promise<T>): Promise<T> {
  let config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new Error(`configuration error: ${error.message}`);
    throw error;
  }
  // Migration notices go to stderr: stdout carries only what the command answers.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2));
  let database: Database;
  try {
    database = await openDatabase(config.database, { logger });
  } catch (error) {
    // Name the setting, never its value: a PostgreSQL URL may carry a password.
    throw new Error(`cannot open the database named by DATABASE_URL: ${(error as Error).message}`);
  }
  try {
    return await work(database);
  } finally {
    await database.close();
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

export function registerTokenCommand(program: Command, io: CliIo): void {
  const token = program.command('token').description('API tokens, in the database named by DATABASE_URL');

  token
    .command('create')
    .description('Create a token and print its secret (once) on stdout')
    .addOption(new Option('--role <role>', 'what the token may do').choices([...ROLES]).makeOptionMandatory())
    .requiredOption('--name <name>', 'who holds it (letters, digits, _ . @ -)')
    .option('--agent <agent>', 'for --role agent: the one agent the token acts as')
    .option('--expires-at <time>', 'ISO 8601 time with a zone after which the token stops working')
    .action(async (options: { role: string; name: string; agent?: string; expiresAt?: string }) => {
      const input = {
        name: options.name,
        role: options.role,
        ...(options.agent !== undefined && { agent: options.agent }),
        ...(options.expiresAt !== undefined && { expires_at: options.expiresAt }),
      };
      if (!checkCreate(input)) {
        throw new Error((checkCreate.errors ?? []).map((e) => `${e.instancePath.replace(/^\//, '') || 'input'} ${e.message}`).join('; '));
      }
      const created = await withDatabase(io, (database) => tokenService(database).create(input, CLI_CREATOR)).catch(explain);
      io.err(`Created ${created.role} token "${created.name}"${created.agent ? ` for agent ${created.agent}` : ''} (id ${created.id}). Keep the secret below: it is not shown again.\n`);
      io.out(`${created.token}\n`);
    });

  token
    .command('list')
    .description('List tokens (never their secrets)')
    .option('--json', 'one JSON array instead of a table')
    .action(async (options: { json?: boolean }) => {
      const tokens = await withDatabase(io, (database) => tokenService(database).list());
      if (options.json) {
        io.out(`${JSON.stringify(tokens, null, 2)}\n`);
        return;
      }
      for (const t of tokens) {
        const state = t.revoked_at ? `revoked ${t.revoked_at}` : t.expires_at ? `expires ${t.expires_at}` : 'active';
        io.out(`${t.id}  ${t.role.padEnd(6)}  ${t.name}${t.agent ? ` (agent ${t.agent})` : ''}  ${state}  last used ${t.last_used_at ?? 'never'}\n`);
      }
    });

  token
    .command('revoke')
    .description('Revoke a token at once, on every instance')
    .argument('<id>', 'the token id, as `token list` shows it')
    .action(async (id: string) => {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new Error(`"${id}" is not a token id`);
      await withDatabase(io, (database) => tokenService(database).revoke(id.toLowerCase()));
      io.err(`Revoked token ${id}.\n`);
    });
}
