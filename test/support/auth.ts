// Identity and access in tests: an app pair (work + classification) on one database with
// AUTH=tokens, tokens minted through the API as an admin would, and a dump of every table
// so a test can prove a secret never reached the database.

import type { AddressInfo } from 'node:net';
import { type Kysely, sql } from 'kysely';
import { expect } from 'vitest';
import { buildClassifyApp } from '../../src/services/classify.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { buildWorkApp } from '../../src/services/work.js';
import { type CapturedLogs, captureLogs, testConfig } from './apps.js';
import { type StoreKind, type TestDatabase, createTestDatabase, openTestDatabase } from './databases.js';
import { call } from './http.js';

export const ADMIN_SECRET = 'env-admin-secret-for-the-tests-7f3a9c1e5b';

/** AUTH=tokens with the admin variable set and the 401 slow-down out of the way. */
export const AUTH_ENV = {
  AUTH: 'tokens',
  AGENTDESK_ADMIN_TOKEN: ADMIN_SECRET,
  AUTH_FAILURE_LIMIT: '1000000',
} as const;

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export interface Minted {
  id: string;
  token: string;
}

export async function mintToken(
  app: HttpApp,
  input: { role: string; name?: string; agent?: string; expires_at?: string },
): Promise<Minted> {
  const response = await call(
    app,
    'POST',
    '/tokens',
    { name: input.name ?? `${input.role}-token`, ...input },
    bearer(ADMIN_SECRET),
  );
  expect(response.status, response.text).toBe(201);
  return { id: response.body.id, token: response.body.token };
}

/** Moves a token's expiry into the past, as time would. */
export async function expireToken(database: Database, id: string): Promise<void> {
  await (database.kysely as Kysely<any>)
    .updateTable('tokens')
    .set({ expires_at: '2001-01-01T00:00:00.000Z' })
    .where('id', '=', id)
    .execute();
}

/** Every row of every table, as one JSON text. */
export async function dumpDatabase(database: Database): Promise<string> {
  const db = database.kysely as Kysely<any>;
  const tables =
    database.dialect === 'sqlite'
      ? (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(db)).rows
      : (
          await sql<{
            name: string;
          }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`.execute(db)
        ).rows;
  const dump: Record<string, unknown[]> = {};
  for (const { name } of tables) dump[name] = await db.selectFrom(name).selectAll().execute();
  return JSON.stringify(dump);
}

export interface AuthPair {
  work: HttpApp;
  classify: HttpApp;
  database: Database;
  testDatabase: TestDatabase;
  logs: CapturedLogs;
  close(): Promise<void>;
}

/**
 * The work service and the classification service on one database, the classification one
 * listening so the work service's /ui-api/classify proxy reaches it, as `npm start` runs them.
 */
/** `classifyNow`: the classify service's clock (its budget's minutes); the wall clock when absent. */
export async function startAuthPair(
  kind: StoreKind,
  env: Record<string, string> = {},
  classifyNow?: () => Date,
): Promise<AuthPair> {
  const testDatabase = await createTestDatabase(kind);
  const database = await openTestDatabase(testDatabase);
  const logs = captureLogs('info');
  const base = { LLM_PROVIDER: 'rules', ...AUTH_ENV, ...env };
  const classify = await buildClassifyApp({
    config: testConfig(testDatabase, base),
    database,
    logger: logs.logger,
    now: classifyNow,
  });
  await classify.listen({ port: 0, host: '127.0.0.1' });
  const { port } = classify.server.address() as AddressInfo;
  const work = await buildWorkApp({
    config: testConfig(testDatabase, { ...base, CLASSIFY_URL: `http://127.0.0.1:${port}` }),
    database,
    logger: logs.logger,
    webRoot: null,
  });
  await work.ready();
  return {
    work,
    classify,
    database,
    testDatabase,
    logs,
    async close() {
      await work.close();
      await classify.close();
      await database.close();
      await testDatabase.destroy();
    },
  };
}
