import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson } from '../support/cli.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// `agentdesk backup FILE` copies the SQLite file while the service writes to it: the copy opens,
// passes integrity_check, and holds every item acknowledged before the backup began. Run
// `npm run build:server` first.

const BURST = 2_000;
const CONCURRENCY = 8;
const BACKUP_AFTER_ACKS = 600;

describe('agentdesk backup on SQLite, during a burst of writes', () => {
  let database: TestDatabase;
  let work: ServerProcess;
  let folder: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    folder = await mkdtemp(join(tmpdir(), 'agentdesk-backup-'));
    env = { DATABASE_URL: database.config.url };
    work = await startWorkServer({ env: { ...env, AUTH: 'off', LOG_LEVEL: 'warn' } });
  });
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('the copy passes integrity_check and holds every item acknowledged before it began', async () => {
    const target = join(folder, 'desk-backup.db');
    const acknowledged: string[] = [];
    let sent = 0;
    let before: string[] | undefined;
    let backup: ReturnType<typeof runCliJson<{ file: string; work_items: number }>> | undefined;
    const client = async () => {
      while (sent < BURST) {
        const description = `backup burst item ${sent++}`;
        const answer = await fetchJson(work.url, 'POST', '/work', { type: 'backup_test', description });
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
        acknowledged.push(answer.body.id);
        if (acknowledged.length === BACKUP_AFTER_ACKS) {
          before = [...acknowledged];
          backup = runCliJson<{ file: string; work_items: number }>(['backup', target], env);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    const { run, body } = await backup!;
    expect(run.code, run.stderr).toBe(0);
    expect(body).toMatchObject({ file: target, integrity: 'ok' });
    expect(body.work_items).toBeGreaterThanOrEqual(BACKUP_AFTER_ACKS);
    expect(acknowledged).toHaveLength(BURST);

    const copy = new BetterSqlite3(target, { readonly: true, fileMustExist: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const ids = new Set((copy.prepare('SELECT id FROM work_items').all() as { id: string }[]).map((row) => row.id));
      expect(ids.size).toBe(body.work_items);
      expect(before!.filter((id) => !ids.has(id))).toEqual([]);
    } finally {
      copy.close();
    }
    // Nothing left beside it but the copy.
    expect(await readdir(folder)).toEqual(['desk-backup.db']);
  }, 180_000);

  it('the copy serves: a service started on it answers the items it holds', async () => {
    const copyUrl = `sqlite:${join(folder, 'desk-backup.db')}`;
    const restored = await startWorkServer({ env: { DATABASE_URL: copyUrl, AUTH: 'off', LOG_LEVEL: 'warn' } });
    try {
      const counts = await fetchJson<{ queued: number }>(restored.url, 'GET', '/work/counts');
      expect(counts.status).toBe(200);
      expect(counts.body.queued).toBeGreaterThanOrEqual(BACKUP_AFTER_ACKS);
    } finally {
      expect(await restored.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('refuses to overwrite a file, a PostgreSQL URL and a database that is not there', async () => {
    const existing = join(folder, 'existing.db');
    await writeFile(existing, 'keep me');
    const overwrite = await runCli(['backup', existing], env);
    expect(overwrite.code).toBe(2);
    expect(overwrite.stderr).toContain('exists');

    const postgres = await runCli(['backup', join(folder, 'pg.db')], { DATABASE_URL: 'postgres://127.0.0.1/test' });
    expect(postgres.code).toBe(2);
    expect(postgres.stderr).toContain('pg_dump');

    const missing = await runCli(['backup', join(folder, 'none.db')], {
      DATABASE_URL: `sqlite:${join(folder, 'no-such.db')}`,
    });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('no database');
    expect(existsSync(join(folder, 'none.db'))).toBe(false);
  });
});
