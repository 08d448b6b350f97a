import type { Logger } from 'pino';
import { createClassifyBudget } from '../auth/classify-budget.js';
import { createAuthParts } from '../auth/setup.js';
import type { Config } from '../shared/config.js';
import type { Database } from '../shared/db.js';
import { registerDatabaseMetrics } from '../shared/database-metrics.js';
import { registerHealthRoute } from '../shared/health.js';
import { type HttpApp, createHttpApp } from '../shared/http.js';
import { traceDatabase } from '../shared/traced-database.js';
import { TRACED_SERVICES, startTracing } from '../shared/tracing.js';
import { createDedupeStore } from './dedupe-store.js';
import type { Backoff } from './llm/retry.js';
import { createClassifyMetrics } from './metrics.js';
import { registerClassifyRoutes } from './routes.js';
import { CLASSIFY_BODY_LIMIT } from './schemas.js';
import { createClassifyService } from './service.js';
import { createUsageReader } from './usage-report.js';
import { registerUsageRoute } from './usage-routes.js';
import { createUsageStore } from './usage-store.js';
import type { HostResolver } from './ssrf.js';

export interface ClassifyAppDeps {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
  /** DNS for the base_url check; tests give a fixed table. */
  resolveHost?: HostResolver;
  /** Shorter retry waits for tests. */
  backoff?: Partial<Backoff>;
}

const PURGE_EVERY_MS = 60 * 60 * 1000;

/** The classification service as a Fastify app that never listens: `main` or a test decides that. */
export async function buildClassifyApp({ config, logger, resolveHost, backoff, ...deps }: ClassifyAppDeps): Promise<HttpApp> {
  const tracing = await startTracing(config.tracing, TRACED_SERVICES.classify, logger);
  const database = traceDatabase(deps.database, tracing);
  const auth = await createAuthParts(config, database, logger);
  const app = await createHttpApp({
    logger,
    tracing,
    trustProxy: config.trustProxy,
    access: auth.access,
    bodyLimit: CLASSIFY_BODY_LIMIT,
    title: 'agentdesk email classification service',
    description: 'Classifies one email: action needed, category, priority, task, details and a persistent dedupe verdict.',
    version: '0.1.0',
  });
  const service = createClassifyService({
    store: createDedupeStore(database),
    llm: config.llm,
    allowOverrides: config.classify.allowOverrides,
    maxChars: config.classify.maxChars,
    retentionDays: config.classify.dedupeRetentionDays,
    logger,
    resolveHost,
    backoff,
    observer: createClassifyMetrics(app.metricsRegistry),
    tracing,
  });
  registerClassifyRoutes(app, service, createClassifyBudget(auth.store, config.classify.rateLimit, logger));
  registerUsageRoute(app, '/classify/usage', createUsageReader(createUsageStore(database), config.llm.prices), 'classification');
  registerHealthRoute(app, database);
  registerDatabaseMetrics(app, app.metricsRegistry, database);

  const purge = (): void => {
    service.purgeExpired().then(
      (removed) => removed > 0 && logger.info({ removed }, 'expired dedupe records purged'),
      (error: unknown) => logger.warn({ err: { message: (error as Error).message } }, 'dedupe purge failed'),
    );
  };
  app.addHook('onReady', async () => purge());
  const timer = setInterval(purge, PURGE_EVERY_MS);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await auth.authenticator.close();
    await tracing.shutdown();
  });
  return app;
}

