import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpApp } from '../../src/shared/http/types.js';
import { buildWorkApp } from '../../src/services/work.js';
import { captureLogs, testConfig } from '../support/apps.js';
import { type TestDatabase, createTestDatabase, openTestDatabase } from '../support/databases.js';
import type { Database } from '../../src/shared/db/database.js';

describe('the work service serves the web UI', () => {
  let root: string;
  let testDatabase: TestDatabase;
  let database: Database;
  const apps: HttpApp[] = [];

  async function appWith(webRoot: string | null): Promise<HttpApp> {
    const app = await buildWorkApp({
      config: testConfig(testDatabase),
      database,
      logger: captureLogs('warn').logger,
      webRoot,
    });
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'agentdesk-web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(
      join(root, 'index.html'),
      '<!doctype html><title>agentdesk</title><script type="module" src="./assets/app-1a2b.js"></script>',
    );
    writeFileSync(join(root, 'assets', 'app-1a2b.js'), 'console.log("ui")');
    // As the build leaves them (web/vite.config.ts): a brotli and a gzip copy beside each text file.
    for (const file of ['index.html', join('assets', 'app-1a2b.js')]) {
      const raw = readFileSync(join(root, file));
      writeFileSync(join(root, `${file}.br`), brotliCompressSync(raw));
      writeFileSync(join(root, `${file}.gz`), gzipSync(raw));
    }
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

  it('sends the compressed copy a browser accepts, with the headers of the file it stands for', async () => {
    const app = await appWith(root);
    const page = await app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(String(page.headers.vary).toLowerCase()).toContain('accept-encoding');
    expect(brotliDecompressSync(page.rawPayload).toString()).toContain('<title>agentdesk</title>');
    const asset = await app.inject({
      method: 'GET',
      url: '/assets/app-1a2b.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.headers['content-type']).toContain('javascript');
    expect(asset.headers['cache-control']).toContain('immutable');
    const plain = await app.inject({
      method: 'GET',
      url: '/assets/app-1a2b.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe('console.log("ui")');
  });

  it('says how to build the UI when it is not built', async () => {
    const app = await appWith(null);
    const response = await app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('npm run build:web');
  });
});
