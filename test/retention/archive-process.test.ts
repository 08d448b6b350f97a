import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveFiles, createArchiver, createRetentionStore, dayFile } from '../../src/retention/index.js';
import { type TestApp, captureLogs, startWorkApp } from '../support/apps.js';
import { runCli } from '../support/cli.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Archiving in processes of its own, on both stores: a kill -9 after a batch is on disk and before
// its rows go loses nothing and keeps nothing twice once another pass runs; `agentdesk archive`
// and `restore-archive` round-trip through a file. Run `npm run build:server` first.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MINUTE_MS = 60_000;

/** Archives in batches of two and kills itself with SIGKILL once the second batch is fsynced. */
const CRASHING_ARCHIVER = `
const { openFromEnvironment } = await import('./dist/src/shared/process/open-from-env.js');
const { archiveFiles, createArchiver, createRetentionStore } = await import('./dist/src/retention/index.js');
const { default: pino } = await import('pino');
const logger = pino({ level: 'silent' });
const { database } = await openFromEnvironment(process.env, () => logger);
let batches = 0;
await createArchiver({
  store: createRetentionStore(database),
  target: { files: archiveFiles(process.env.ARCHIVE_TO) },
  now: () => new Date(),
  logger,
  batchSize: 2,
  afterWrite: () => {
    batches += 1;
    if (batches === 2) process.kill(process.pid, 'SIGKILL');
  },
}).archiveBefore(process.env.BEFORE);
`;

function runCrashingArchiver(env: Record<string, string>): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CRASHING_ARCHIVER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
}

function idsIn(file: Buffer): string[] {
  return gunzipSync(file)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line).item.id as string);
}

describe.each(await storesUnderTest())('archiving in its own process on %s', (kind) => {
  let t: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentdesk-archive-'));
    t = await startWorkApp(kind);
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cancelledItems = async (n: number, label: string) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const made = await call(t.app, 'POST', '/work', { type: 'gone', description: `${label} ${i}` });
      expect(made.status, made.text).toBe(201);
      const cancel = await call(t.app, 'PATCH', `/work/${made.body.id}`, { status: 'cancelled', outcome: 'cancelled' });
      expect(cancel.status, cancel.text).toBe(200);
      ids.push(made.body.id);
    }
    return ids;
  };
  const present = async (ids: string[]) => {
    const found: string[] = [];
    for (const id of ids) if ((await call(t.app, 'GET', `/work/${id}`)).status === 200) found.push(id);
    return found;
  };

  it('a kill -9 between the fsync and the delete: nothing lost, nothing twice after the next pass', async () => {
    const ids = await cancelledItems(5, 'crash');
    const before = new Date(Date.now() + MINUTE_MS).toISOString();
    const signal = await runCrashingArchiver({
      DATABASE_URL: t.testDatabase.config.url,
      ARCHIVE_TO: dir,
      BEFORE: before,
    });
    expect(signal).toBe('SIGKILL');
    const file = dayFile(dir, new Date());
    // The first batch went; the second is in the file and still in the database.
    expect(idsIn(await readFile(file))).toHaveLength(4);
    expect(await present(ids)).toHaveLength(3);
    const ledger = await t.database.kysely.selectFrom('archive_ledger').selectAll().executeTakeFirst();
    expect(ledger).toMatchObject({ file, file_offset: expect.anything() });

    // Another instance, once the dead one's lease has run out, cuts the batch back and does it again.
    const logs = captureLogs('warn');
    const later = () => new Date(Date.now() + 10 * MINUTE_MS);
    const result = await createArchiver({
      store: createRetentionStore(t.database),
      target: { files: archiveFiles(dir) },
      now: later,
      logger: logs.logger,
    }).archiveBefore(before);
    expect(result).toMatchObject({ ran: true, removed: 3 });
    expect(logs.text()).toContain('did not finish');
    // Ten minutes on may be the next day, whose file the second pass then starts.
    const files = [...new Set([file, dayFile(dir, later())])];
    const archived = (await Promise.all(files.map(async (day) => idsIn(await readFile(day))))).flat();
    expect([...archived].sort()).toEqual([...ids].sort());
    expect(await present(ids)).toEqual([]);
    expect(await t.database.kysely.selectFrom('archive_ledger').selectAll().execute()).toEqual([]);
  }, 60_000);

  it('agentdesk archive writes JSON lines to stdout and removes them; restore-archive brings them back', async () => {
    const ids = await cancelledItems(3, 'cli');
    const queued = (await call(t.app, 'POST', '/work', { type: 'stays', description: 'still to do' })).body.id;
    const env = { DATABASE_URL: t.testDatabase.config.url, LOG_LEVEL: 'silent' };
    expect((await runCli(['archive', '--before', 'soon'], env)).code).toBe(2);

    const archived = await runCli(['archive', '--before', new Date(Date.now() + MINUTE_MS).toISOString()], env);
    expect(archived.code, archived.stderr).toBe(0);
    const lines = archived.stdout.split('\n').filter((line) => line !== '');
    expect(lines.map((line) => JSON.parse(line).item.id).sort()).toEqual([...ids].sort());
    expect(archived.stderr).toContain('archived and removed 3 items');
    expect(await present([...ids, queued])).toEqual([queued]);

    const file = join(dir, 'shipped.jsonl');
    await writeFile(file, archived.stdout);
    expect((await runCli(['restore-archive', join(dir, 'missing.jsonl')], env)).code).toBe(2);
    const restored = await runCli(['restore-archive', file, '--json'], env);
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toEqual({ restored: 3, skipped: 0, links: 0 });
    expect(await present([...ids, queued])).toEqual([...ids, queued]);
    const again = await runCli(['restore-archive', file, '--json'], env);
    expect(JSON.parse(again.stdout)).toEqual({ restored: 0, skipped: 3, links: 0 });
  }, 60_000);
});
