import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, sqlitePath } from '../../src/shared/db/database.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { buildWorkApp } from '../../src/services/work.js';
import { captureLogs, testConfig } from '../support/apps.js';
import { type TestDatabase, createTestDatabase, openTestDatabase } from '../support/databases.js';
import { call } from '../support/http.js';

// Another process holding SQLite's write lock longer than the busy timeout
// is the one case a write may still fail; it must be a 503 with Retry-After, never a 500, and
// reads carry on meanwhile (WAL). The two-process load test shows it does not happen under
// ordinary contention (test/process/sqlite-two-processes.test.ts).

const BUSY_TIMEOUT_MS = 300;

describe('a write lock held by another connection on SQLite', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  let app: HttpApp;
  beforeAll(async () => {
    testDatabase = await createTestDatabase('sqlite', { statementTimeoutMs: BUSY_TIMEOUT_MS });
    database = await openTestDatabase(testDatabase);
    app = await buildWorkApp({
      config: testConfig(testDatabase),
      database,
      logger: captureLogs('warn').logger,
      webRoot: null,
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await testDatabase?.destroy();
  });

  it('waits the busy timeout, then answers 503 problem+json with Retry-After; reads go on; writes resume', async () => {
    const before = await call(app, 'POST', '/work', { type: 'busy', description: 'before the lock' });
    expect(before.status).toBe(201);

    const other = new BetterSqlite3(sqlitePath(testDatabase.config.url));
    try {
      other.exec('BEGIN IMMEDIATE');
      other.prepare("UPDATE work_items SET notes = 'held' WHERE id = ?").run(before.body.id);

      const started = Date.now();
      const blocked = await call(app, 'POST', '/work', { type: 'busy', description: 'during the lock' });
      expect(blocked.status, blocked.text).toBe(503);
      expect(blocked.headers['content-type']).toContain('application/problem+json');
      expect(blocked.headers['retry-after']).toBe('1');
      expect(Date.now() - started).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS - 50);

      const patched = await call(app, 'PATCH', `/work/${before.body.id}`, { notes: 'mine' });
      expect(patched.status).toBe(503);

      const read = await call(app, 'GET', '/work?type=busy');
      expect(read.status).toBe(200);
      expect(read.body.map((item: { description: string }) => item.description)).toEqual(['before the lock']);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const after = await call(app, 'POST', '/work', { type: 'busy', description: 'after the lock' });
    expect(after.status).toBe(201);
  });

  it('every busy or locked result code, extended ones included, counts as unavailable (503), not a 500', () => {
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_BUSY_TIMEOUT',
      'SQLITE_BUSY_RECOVERY',
      'SQLITE_LOCKED_SHAREDCACHE',
    ]) {
      expect(isDatabaseUnavailable({ code, message: 'database is locked' }), code).toBe(true);
    }
    expect(isDatabaseUnavailable({ code: 'SQLITE_BUSYNESS' })).toBe(false);
    expect(isDatabaseUnavailable({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBe(false);
  });
});
