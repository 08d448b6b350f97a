import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { type Config, loadConfig } from '../../src/shared/config/config.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { createLogger } from '../../src/shared/observability/logger.js';
import { type WorkAppDeps, buildWorkApp } from '../../src/services/work.js';
import { type StoreKind, type TestDatabase, createTestDatabase, openTestDatabase } from './databases.js';

/** Log lines captured in memory, so tests can read what the service wrote. */
export interface CapturedLogs {
  logger: Logger;
  lines: string[];
  text(): string;
}

export function captureLogs(level: Config['logLevel'] = 'debug'): CapturedLogs {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger(level, sink), lines, text: () => lines.join('\n') };
}

/** Configuration as `main` would load it from an environment, plus the test database. */
export function testConfig(database: TestDatabase, env: Record<string, string> = {}): Readonly<Config> {
  return loadConfig({ LOG_LEVEL: 'silent', ...env, DATABASE_URL: database.config.url });
}

export interface TestApp {
  app: HttpApp;
  database: Database;
  testDatabase: TestDatabase;
  logs: CapturedLogs;
  close(): Promise<void>;
}

export interface AppParts {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
}

/** Builds an app on a fresh database of the given kind; `close` drops the database too. */
export async function startTestApp(
  kind: StoreKind,
  env: Record<string, string>,
  logs: CapturedLogs,
  build: (parts: AppParts) => Promise<HttpApp>,
): Promise<TestApp> {
  const testDatabase = await createTestDatabase(kind);
  const database = await openTestDatabase(testDatabase);
  const app = await build({ config: testConfig(testDatabase, env), database, logger: logs.logger });
  await app.ready();
  return {
    app,
    database,
    testDatabase,
    logs,
    async close() {
      await app.close();
      await database.close();
      await testDatabase.destroy();
    },
  };
}

/** What a test may set on the work app beyond the environment: its clock, its lease sweeps, notify's collaborators. */
export type WorkAppOptions = Pick<
  WorkAppDeps,
  | 'now'
  | 'sweepEveryMs'
  | 'onLeaseSweeper'
  | 'onEventsPurge'
  | 'a2aHeartbeatMs'
  | 'notify'
  | 'onNotifySender'
  | 'onNotifyScheduler'
  | 'webhooks'
  | 'onWebhooks'
  | 'onA2aPushSweep'
  | 'onRetention'
  | 'searchRankedWindow'
>;

export function startWorkApp(
  kind: StoreKind,
  env: Record<string, string> = {},
  options: WorkAppOptions = {},
): Promise<TestApp> {
  return startTestApp(kind, env, captureLogs('info'), (parts) => buildWorkApp({ ...parts, ...options }));
}
