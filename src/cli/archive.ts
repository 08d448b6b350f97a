import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { type CliContext, UsageError } from './context.js';
import { json } from './format.js';

// `agentdesk archive --before DATE`: final items last changed before DATE as JSON lines on
// stdout, each removed once written, for a team that keeps them elsewhere; `agentdesk
// restore-archive FILE` brings archived items back. Both work on the database, not the API.

function instantOf(text: string): string {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00.000Z` : text;
  const ms = Date.parse(at);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(ms)) {
    throw new UsageError(`--before: expected a date (2026-11-01) or an ISO 8601 time, got "${text}"`);
  }
  return new Date(ms).toISOString();
}

export function registerArchiveCommands(program: Command, { io }: CliContext): void {
  program
    .command('archive')
    .description(
      'Write the final items last changed before DATE to stdout as JSON lines and remove them, with their ' +
        'history, comments and questions, from the database DATABASE_URL names (docs/operations.md)',
    )
    .requiredOption('--before <date>', 'a date (UTC midnight) or an ISO 8601 time')
    .action(async (options: { before: string }) => {
      const before = instantOf(options.before);
      const [{ withDatabase }, { createArchiver, createRetentionStore }, { createLogger }, pino] = await Promise.all([
        import('./database.js'),
        import('../retention/index.js'),
        import('../shared/observability/logger.js'),
        import('pino'),
      ]);
      const result = await withDatabase(io, (database) =>
        createArchiver({
          store: createRetentionStore(database),
          // Pipes to a file or a process are written synchronously on Linux: a batch is out before its rows go.
          target: {
            stream: async (lines) => {
              const text = lines.map((line) => `${line}\n`).join('');
              io.out(text);
              return Buffer.byteLength(text);
            },
          },
          now: () => new Date(),
          logger: createLogger('warn', pino.default.destination(2)),
        }).archiveBefore(before),
      );
      if (!result.ran) throw new Error('another instance is archiving now: try again in a few minutes');
      io.err(`archived and removed ${result.removed} items (${result.bytes} bytes)\n`);
    });

  program
    .command('restore-archive')
    .description('Bring archived items back into the database DATABASE_URL names (ids kept; existing ids skipped)')
    .argument('<file>', 'a day file from ARCHIVE_DIR (gzip) or the JSON lines `agentdesk archive` wrote')
    .option('--json', 'the counts as JSON')
    .action(async (file: string, options: { json?: boolean }) => {
      if (!existsSync(file)) throw new UsageError(`no file at ${file}`);
      const [{ withDatabase }, { createRetentionStore, restoreArchive }] = await Promise.all([
        import('./database.js'),
        import('../retention/index.js'),
      ]);
      const result = await withDatabase(io, (database) => restoreArchive(createRetentionStore(database), file));
      if (options.json) io.out(json(result));
      else io.out(`restored ${result.restored} items, skipped ${result.skipped} that exist, ${result.links} links\n`);
    });
}
