import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpApp } from '../../src/shared/http.js';
import { buildWorkApp } from '../../src/work/app.js';
import { captureLogs, testConfig } from '../helpers/apps.js';
import { type TestDatabase, createTestDatabase, openTestDatabase } from '../helpers/databases.js';
import type { Database } from '../../src/shared/db.js';

describe('the work service serves the web UI', () => {
  let root: string;
  let testDatabase: TestDatabase;
  let database: Database;
  const apps: HttpApp[] = [];

  async function appWith(webRoot: string | null): Promise<HttpApp> {
    const app = await buildWorkApp({ config: testConfig(testDatabase), database, logger: captureLogs('warn').logger, webRoot });
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'agentdesk-web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>agentdesk</title><script type="module" src="./assets/app-1a2b.js"></script>');
    writeFileSync(join(root, 'assets', 'app-1a2b.js'), 'console.log("ui")');
    testDatabase = await createTestDatabase('sqlite');
    database = await openTestDatabase(testDatabase);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await database.close();
    await testDatabase.destroy();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves index.html at / with a strict Content-Security-Policy', async () => {
    const app = await appWith(root);
    const response = await app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('<title>agentdesk</title>');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(response.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets as immutable, and leaves every other path to the API', async () => {
    const app = await appWith(root);
    const asset = await app.inject({ method: 'GET', url: '/assets/app-1a2b.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    const missing = await app.inject({ method: 'GET', url: '/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    const api = await app.inject({ method: 'GET', url: '/work' });
    expect(api.statusCode).toBe(200);
    expect(api.json()).toEqual([]);
  });

  it('says how to build the UI when it is not built', async () => {
    const app = await appWith(null);
    const response = await app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('npm run build:web');
  });
});
