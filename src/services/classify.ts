import type { Logger } from 'pino';
import { createClassifyBudget } from '../auth/index.js';
import { ACCESS } from '../auth/contract.js';
import {
  createDedupeStore,
  type Backoff,
  createClassifyMetrics,
  registerClassifyRoutes,
  type ClassifyService,
  createClassifyService,
  createUsageReader,
  registerUsageRoute,
  createUsageStore,
} from '../classify/index.js';
import { CLASSIFY_BODY_LIMIT } from '../classify/contract.js';
import type { HostResolver } from '../shared/net/ssrf.js';
import type { Config } from '../shared/config/config.js';
import { registerDatabaseMetrics } from '../shared/observability/database-metrics.js';
import type { Database } from '../shared/db/database.js';
import { registerHealthRoute } from '../shared/http/health.js';
import type { HttpApp } from '../shared/http/types.js';
import type { Registry } from '../shared/observability/metrics.js';
import { TRACED_SERVICES, type Tracing } from '../shared/observability/tracing.js';
import { buildServiceApp } from './app.js';
import { CLASSIFY_SCHEMAS } from './openapi-schemas.js';

// The classification service's composition root: POST /classify, its usage report, health.

export interface ClassifyAppDeps {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
  /** DNS for the base_url check; tests give a fixed table. */
  resolveHost?: HostResolver;
  /** Shorter retry waits for tests. */
  backoff?: Partial<Backoff>;
  /** The clock the classify budget counts its minutes by; tests give one they move by hand. */
  now?: () => Date;
}

export interface ClassifyServiceParts extends ClassifyAppDeps {
  /** The app's registry: the provider calls and duplicates served are counted there. */
  metrics: Registry;
  tracing: Tracing;
}

/**
 * The one ClassifyService of a process, from the configuration: the classify service's route and
 * mail intake (in the work service) both use one built here, with metrics and tracing.
 */
export function buildClassifyService({
  config,
  database,
  logger,
  resolveHost,
  backoff,
  metrics,
  tracing,
}: ClassifyServiceParts): ClassifyService {
  return createClassifyService({
    store: createDedupeStore(database),
    llm: config.llm,
    allowOverrides: config.classify.allowOverrides,
    maxChars: config.classify.maxChars,
    retentionDays: config.classify.dedupeRetentionDays,
    logger,
    resolveHost,
    outboundAllowedHosts: config.outbound.allowedHosts,
    backoff,
    observer: createClassifyMetrics(metrics),
    tracing,
  });
}

const PURGE_EVERY_MS = 60 * 60 * 1000;

/** The classification service as a Fastify app that never listens: `main` or a test decides that. */
export async function buildClassifyApp({
  config,
  logger,
  resolveHost,
  backoff,
  now,
  ...deps
}: ClassifyAppDeps): Promise<HttpApp> {
  const { app, database, tracing, auth } = await buildServiceApp({
    config,
    database: deps.database,
    logger,
    service: TRACED_SERVICES.classify,
    bodyLimit: CLASSIFY_BODY_LIMIT,
    title: 'agentdesk email classification service',
    description:
      'Classifies one email: action needed, category, priority, task, details and a persistent dedupe verdict.',
    version: '0.1.0',
    schemas: CLASSIFY_SCHEMAS,
  });
  const service = buildClassifyService({
    config,
    database,
    logger,
    resolveHost,
    backoff,
    metrics: app.metricsRegistry,
    tracing,
  });
  registerClassifyRoutes(app, service, createClassifyBudget(auth.store, config.classify.rateLimit, logger, now));
  registerUsageRoute(
    app,
    '/classify/usage',
    createUsageReader(createUsageStore(database), config.llm.prices),
    'classification',
  );
  registerHealthRoute(app, database, ACCESS.public);
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
