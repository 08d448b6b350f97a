import { existsSync } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_DATABASE_URL } from '../shared/config/config.js';
import { CannotReachError, type CliContext, UsageError } from './context.js';
import { json } from './format.js';

// `agentdesk backup FILE`: an online copy of the SQLite database while the service writes to it,
// through SQLite's backup API, checked before it is given its name. PostgreSQL has its own
// tools (docs/operations.md).

export interface BackupResult {
  file: string;
  bytes: number;
  work_items: number;
  integrity: 'ok';
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * One self-contained file (the copy inherits WAL mode, which would leave -wal and -shm files
 * beside it), checked by SQLite; answers how many items it holds, or throws when it is damaged.
 */
async function finishCopy(path: string): Promise<number> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const copy = new BetterSqlite3(path, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const report = (copy.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
    if (report.length !== 1 || report[0] !== 'ok') {
      throw new Error(`the copy failed integrity_check: ${report.slice(0, 5).join('; ')}`);
    }
    return (copy.prepare('SELECT count(*) AS n FROM work_items').get() as { n: number }).n;
  } finally {
    copy.close();
  }
}

async function removeCopy(path: string): Promise<void> {
  await Promise.all(['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${path}${suffix}`, { force: true })));
}

export async function backupSqlite(source: string, target: string): Promise<BackupResult> {
  if (!existsSync(source)) throw new CannotReachError(`no database at ${source}`);
  if (existsSync(target)) throw new UsageError(`${target} exists: a backup never overwrites a file`);
  const finalPath = resolve(target);
  // Written beside its final name and renamed only once checked, so FILE is always a whole copy.
  const partial = join(dirname(finalPath), `.${basename(finalPath)}.partial`);
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  // Read-only: a backup neither migrates nor checkpoints the service's database.
  const database = new BetterSqlite3(source, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    await removeCopy(partial);
    // The whole file in one step after the first: a step reads one snapshot, and a write by the
    // service between small steps would start the copy over, again and again under load.
    await database.backup(partial, { progress: ({ totalPages }) => Math.max(totalPages, 100) });
  } catch (error) {
    await removeCopy(partial);
    throw new CannotReachError(`backup of ${source} failed: ${(error as Error).message}`);
  } finally {
    database.close();
  }
  try {
    const items = await finishCopy(partial);
    await fsyncPath(partial);
    await rename(partial, finalPath);
    await fsyncPath(dirname(finalPath));
    return { file: finalPath, bytes: (await stat(finalPath)).size, work_items: items, integrity: 'ok' };
  } catch (error) {
    await removeCopy(partial);
    throw error;
  }
}

export function registerBackupCommand(program: Command, context: CliContext): void {
  const { io } = context;
  program
    .command('backup')
    .description(
      'Copy the SQLite database DATABASE_URL names (default ./data/agentdesk.db) to FILE while the service runs, ' +
        'then check the copy (PostgreSQL: pg_dump, see docs/operations.md)',
    )
    .argument('<file>', 'where the copy goes; must not exist')
    .option('--json', 'what was written, as JSON')
    .action(async (file: string, options: { json?: boolean }) => {
      const url = io.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
      if (!url.startsWith('sqlite:')) {
        throw new UsageError(
          'backup copies a SQLite database; back up PostgreSQL with pg_dump or base backups (docs/operations.md)',
        );
      }
      const { sqlitePath } = await import('../shared/db/database.js');
      const path = sqlitePath(url);
      if (path === ':memory:') throw new UsageError('an in-memory database has nothing to back up');
      const result = await backupSqlite(path, file);
      if (options.json) io.out(json(result));
      else
        io.out(`backed up ${result.work_items} work items to ${result.file} (${result.bytes} bytes, integrity ok)\n`);
    });
}
