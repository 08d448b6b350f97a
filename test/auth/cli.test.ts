import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWellFormedToken } from '../../src/auth/token-format.js';
import { type Database, openDatabase } from '../../src/shared/db/database.js';
import { createLogger } from '../../src/shared/observability/logger.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { buildWorkApp } from '../../src/services/work.js';
import { captureLogs, testConfig } from '../support/apps.js';
import { bearer, dumpDatabase } from '../support/auth.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// The first admin token comes from `agentdesk token create`, the built CLI as the
// package's `bin` runs it (`npm run build:server` first), writing straight to DATABASE_URL.

const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const run = promisify(execFile);

async function agentdesk(
  databaseUrl: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DATABASE_URL: databaseUrl },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe.each(await storesUnderTest())('agentdesk token on %s', (kind) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let app: HttpApp;
  let url: string;
  let firstSecret: string;

  beforeAll(async () => {
    testDatabase = await createTestDatabase(kind);
    url = testDatabase.config.url;
    // The CLI runs first, on an empty database: it applies the migrations itself.
    const created = await agentdesk(url, 'token', 'create', '--role', 'admin', '--name', 'ops');
    expect(created.code, created.stderr).toBe(0);
    firstSecret = created.stdout.trim();
    database = await openTestDatabase(testDatabase);
    app = await buildWorkApp({
      config: testConfig(testDatabase, { AUTH: 'tokens' }),
      database,
      logger: captureLogs('silent').logger,
      webRoot: null,
    });
    await app.ready();
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await testDatabase?.destroy();
  });

  it('create prints only the secret on stdout, and the service accepts it as an admin', async () => {
    const secret = firstSecret;
    expect(isWellFormedToken(secret)).toBe(true);
    const listed = await call(app, 'GET', '/tokens', undefined, bearer(secret));
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({ name: 'ops', role: 'admin', created_by: 'cli', agent: null }),
    ]);
    expect(await dumpDatabase(database)).not.toContain(secret);
  });

  it('creates an agent token bound to its agent, refuses bad input with a message and exit code 1', async () => {
    const made = await agentdesk(url, 'token', 'create', '--role', 'agent', '--name', 'ada-laptop', '--agent', 'ada');
    expect(made.code).toBe(0);
    const submitted = await call(
      app,
      'POST',
      '/work',
      { type: 'cli', description: 'from the CLI token' },
      bearer(made.stdout.trim()),
    );
    expect(submitted.body.created_by).toBe('ada');

    const noAgent = await agentdesk(url, 'token', 'create', '--role', 'agent', '--name', 'x');
    expect(noAgent).toMatchObject({ code: 1, stdout: '' });
    expect(noAgent.stderr).toContain('agent is required');
    const badRole = await agentdesk(url, 'token', 'create', '--role', 'root', '--name', 'x');
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toContain('viewer, agent, member, intake, admin');
    const badName = await agentdesk(url, 'token', 'create', '--role', 'viewer', '--name', 'two words');
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain('name');
    // The API's own date check (one Ajv set-up): a leap second parses as no Date, year 0 is not
    // storable; the database path's Ajv took both as well-formed.
    for (const time of ['2030-06-30T23:59:60Z', '0000-01-01T00:00:00Z']) {
      const badTime = await agentdesk(url, 'token', 'create', '--role', 'viewer', '--name', 'x', '--expires-at', time);
      expect(badTime, time).toMatchObject({ code: 1, stdout: '' });
      // In the API's words for it (before, the service's "must be in the future" let it by the check).
      expect(badTime.stderr).toContain('expires_at must match format "date-time"');
    }
  });

  it('list shows no secret; revoke stops the token at once', async () => {
    const made = await agentdesk(url, 'token', 'create', '--role', 'viewer', '--name', 'doomed');
    const secret = made.stdout.trim();
    expect((await call(app, 'GET', '/work', undefined, bearer(secret))).status).toBe(200);
    const listed = await agentdesk(url, 'token', 'list', '--json');
    expect(listed.stdout).not.toContain(secret);
    const doomed = (JSON.parse(listed.stdout) as Array<{ id: string; name: string }>).find((t) => t.name === 'doomed')!;
    const revoked = await agentdesk(url, 'token', 'revoke', doomed.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    // The service's cache holds an answer for half a second at most; on PostgreSQL the notice is sooner.
    await expect
      .poll(async () => (await call(app, 'GET', '/work', undefined, bearer(secret))).status, { timeout: 2_000 })
      .toBe(401);
    expect((await agentdesk(url, 'token', 'revoke', '00000000-0000-4000-8000-000000000000')).stderr).toContain(
      'No token',
    );
  });
});

// The sign-in page's hint, run in the checkout where `npm start` keeps its data, failed
// unless DATABASE_URL was set: the CLI must find the default database that `npm start` uses.
describe('agentdesk token without DATABASE_URL', () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  async function inFolder(folder: string, ...args: string[]) {
    try {
      const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
        cwd: folder,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', AGENTDESK_URL: 'http://127.0.0.1:9' },
        timeout: 30_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it("uses npm start's default database (./data/agentdesk.db) when it exists there", async () => {
    const checkout = mkdtempSync(join(tmpdir(), 'agentdesk-checkout-'));
    folders.push(checkout);
    // What a first `npm start` in that folder leaves: the database, migrated.
    const database = await openDatabase(
      { url: `sqlite:${join(checkout, 'data', 'agentdesk.db')}`, poolSize: 1, statementTimeoutMs: 5_000 },
      { logger: createLogger('silent') },
    );
    await database.close();
    const made = await inFolder(checkout, 'token', 'create', '--role', 'admin', '--name', 'you');
    expect(made.code, made.stderr).toBe(0);
    expect(isWellFormedToken(made.stdout.trim())).toBe(true);
    const listed = await inFolder(checkout, 'token', 'ls', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'you', role: 'admin' })]);

    // Elsewhere, with no database there, it still goes to the API (here: nobody answers).
    const elsewhere = mkdtempSync(join(tmpdir(), 'agentdesk-elsewhere-'));
    folders.push(elsewhere);
    const viaApi = await inFolder(elsewhere, 'token', 'ls');
    expect(viaApi.code).toBe(3);
    expect(viaApi.stderr).toContain('cannot reach agentdesk');
  });
});
