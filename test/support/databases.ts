import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/shared/config/config.js';
import { type Database, openDatabase } from '../../src/shared/db/database.js';
import { createLogger } from '../../src/shared/observability/logger.js';
import { refuseInsideTransaction } from './connection-guard.js';

// Every HTTP suite runs once per store. PostgreSQL comes from TEST_DATABASE_URL, else the
// machine's default server; without one the PostgreSQL half is skipped, loudly, except in CI.

export type StoreKind = 'sqlite' | 'postgres';

const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

export function postgresBaseUrl(): string {
  return process.env.TEST_DATABASE_URL ?? DEFAULT_POSTGRES_URL;
}

let postgresReachable: Promise<boolean> | undefined;

async function probePostgres(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresBaseUrl(), connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The stores this run tests against; call with top-level await in a test file. */
export async function storesUnderTest(): Promise<StoreKind[]> {
  postgresReachable ??= probePostgres();
  if (await postgresReachable) return ['sqlite', 'postgres'];
  if (process.env.CI) {
    throw new Error(`PostgreSQL is required in CI but ${postgresBaseUrl()} does not answer`);
  }
  console.warn(`[agentdesk tests] PostgreSQL at ${postgresBaseUrl()} does not answer: PostgreSQL half SKIPPED`);
  return ['sqlite'];
}

export interface TestDatabase {
  kind: StoreKind;
  /** PostgreSQL: the schema, also the connections' application_name. */
  schema?: string;
  config: DatabaseConfig;
  /** Drops the schema or deletes the file. */
  destroy(): Promise<void>;
}

/** A fresh, empty database of the given kind: a new SQLite file, or a new PostgreSQL schema. */
export async function createTestDatabase(
  kind: StoreKind,
  overrides: Partial<DatabaseConfig> = {},
): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const folder = await mkdtemp(join(tmpdir(), 'agentdesk-test-'));
    return {
      kind,
      config: { url: `sqlite:${join(folder, 'agentdesk.db')}`, poolSize: 1, statementTimeoutMs: 5_000, ...overrides },
      destroy: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresBaseUrl() });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(postgresBaseUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  // Lets a test find (and terminate) exactly this database's connections.
  url.searchParams.set('application_name', schema);
  return {
    kind,
    schema,
    config: { url: url.toString(), poolSize: 5, statementTimeoutMs: 5_000, ...overrides },
    destroy: async () => {
      const cleaner = new pg.Client({ connectionString: postgresBaseUrl() });
      await cleaner.connect();
      await cleaner.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await cleaner.end();
    },
  };
}

export function openTestDatabase(test: TestDatabase): Promise<Database> {
  return openDatabase(test.config, { logger: createLogger('silent'), beforeConnection: refuseInsideTransaction });
}
