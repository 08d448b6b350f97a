import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { type CreateToken, type TokenRecord, ROLES } from '../auth/contract.js';
import { DEFAULT_DATABASE_URL } from '../shared/config/config.js';
import { type CliContext, UsageError } from './context.js';
import type { TokenBackend } from './token-backend.js';
import { json, paintFor, relativeTime, table } from './format.js';

// `agentdesk token create|ls|revoke`: straight to the database (so the first admin token needs no running
// service and no token), or through the API with an admin token.

const DEFAULT_DATABASE_FILE = DEFAULT_DATABASE_URL.slice('sqlite:'.length);

const TOKEN_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The database DATABASE_URL names; with neither it nor AGENTDESK_TOKEN set, the default database `npm start`
 * uses when it exists here (./data/agentdesk.db, the sign-in page's hint run in the checkout); otherwise the
 * API at AGENTDESK_URL, with an admin token in AGENTDESK_TOKEN.
 */
async function backendFor(context: CliContext): Promise<TokenBackend> {
  const { io } = context;
  if (io.env.DATABASE_URL?.trim()) return (await import('./token-database.js')).databaseTokens(io);
  if (!io.env.AGENTDESK_TOKEN?.trim() && existsSync(DEFAULT_DATABASE_FILE)) {
    return (await import('./token-database.js')).databaseTokens({
      ...io,
      env: { ...io.env, DATABASE_URL: DEFAULT_DATABASE_URL },
    });
  }
  return {
    create: (input) => context.work().createToken(input),
    list: () => context.work().listTokens(),
    revoke: (id) => context.work().revokeToken(id),
  };
}

export function registerTokenCommand(program: Command, context: CliContext): void {
  const { io } = context;
  const token = program
    .command('token')
    .description(
      'API tokens: in the database named by DATABASE_URL when set, else through AGENTDESK_URL (admin token)',
    );

  // The secret alone on stdout (so `TOKEN=$(agentdesk token create …)` works), what was made on stderr;
  // the secret is never shown again.
  token
    .command('create')
    .description('Create a token and print its secret (once) on stdout')
    .addOption(new Option('--role <role>', 'what the token may do').choices([...ROLES]).makeOptionMandatory())
    .requiredOption('--name <name>', 'who holds it (letters, digits, _ . @ -)')
    .option(
      '--agent <agent>',
      'the name the token acts as: required for --role agent; for --role member, default --name',
    )
    .option('--expires-at <time>', 'ISO 8601 time with a zone after which the token stops working')
    .option('--json', 'the token record with its secret, as JSON')
    .action(async (options: { role: string; name: string; agent?: string; expiresAt?: string; json?: boolean }) => {
      const input = {
        name: options.name,
        role: options.role,
        ...(options.agent !== undefined && { agent: options.agent }),
        ...(options.expiresAt !== undefined && { expires_at: options.expiresAt }),
      };
      const created = await (await backendFor(context)).create(input as CreateToken);
      io.err(
        `Created ${created.role} token "${created.name}"${created.agent ? ` for agent ${created.agent}` : ''} (id ${created.id}). Keep the secret below: it is not shown again.\n`,
      );
      io.out(options.json ? json(created) : `${created.token}\n`);
    });

  token
    .command('ls')
    .alias('list')
    .description('List tokens (never their secrets)')
    .option('--json', 'a JSON array')
    .action(async (options: { json?: boolean }) => {
      const tokens = await (await backendFor(context)).list();
      if (options.json) return io.out(json(tokens));
      if (tokens.length === 0) return io.out('No tokens.\n');
      const paint = paintFor(io);
      const state = (t: TokenRecord) =>
        t.revoked_at
          ? paint.dim(`revoked ${relativeTime(t.revoked_at)}`)
          : t.expires_at
            ? `expires ${relativeTime(t.expires_at)}`
            : paint.green('active');
      io.out(
        table(
          ['ID', 'ROLE', 'NAME', 'AGENT', 'STATE', 'LAST USED'],
          tokens.map((t) => [
            t.id,
            t.role,
            t.name,
            t.agent ?? '-',
            state(t),
            t.last_used_at ? relativeTime(t.last_used_at) : 'never',
          ]),
          paint,
        ),
      );
    });

  token
    .command('revoke')
    .description('Revoke a token at once, on every instance')
    .argument('<id>', 'the token id, as `token ls` shows it')
    .action(async (id: string) => {
      if (!TOKEN_ID_RE.test(id)) throw new UsageError(`"${id}" is not a token id`);
      await (await backendFor(context)).revoke(id.toLowerCase());
      io.err(`Revoked token ${id}.\n`);
    });
}
