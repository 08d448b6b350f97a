import type { Logger } from 'pino';
import { registerSessionRoutes, registerTokenRoutes } from '../auth/routes.js';
import { createAuthParts } from '../auth/setup.js';
import { createTokenService } from '../auth/token-service.js';
import { registerIntake } from '../intake/setup.js';
import { registerMcpRoutes } from '../mcp/http.js';
import { registerMcpSetupRoute } from '../mcp/setup-route.js';
import { createUsageReader } from '../classify/usage-report.js';
import { registerUsageRoute } from '../classify/usage-routes.js';
import { createUsageStore } from '../classify/usage-store.js';
import type { Config } from '../shared/config.js';
import type { Database } from '../shared/db.js';
import { registerDatabaseMetrics } from '../shared/database-metrics.js';
import { registerHealthRoute } from '../shared/health.js';
import { type HttpApp, createHttpApp } from '../shared/http.js';
import { createSignal } from '../shared/signal.js';
import { traceDatabase } from '../shared/traced-database.js';
import { TRACED_SERVICES, startTracing } from '../shared/tracing.js';
import { createClaimService } from './claims.js';
import { createRecentItems } from './item-changes.js';
import { registerClassifyProxy, relayTimeoutMs } from './classify-proxy.js';
import { createEventHub, registerEventRoutes } from './events.js';
import { startLeaseSweeper } from './lease-sweeper.js';
import { createWorkCounters, registerWorkGauges } from './metrics.js';
import { createProjectService } from './project-service.js';
import { registerProjectRoutes, registerWorkRoutes } from './routes.js';
import { createWorkService } from './service.js';
import { startStatsCompactor } from './stats/compactor.js';
import { registerStatsRoutes } from './stats/routes.js';
import { createStatsService } from './stats/service.js';
import { createStatsStore } from './stats/store.js';
import { createWorkStore } from './store/create.js';
import { workForIntake } from './intake-port.js';
import { registerWebUi } from './web.js';

export interface WorkAppDeps {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
  /** Where the built web UI lives; found next to the code when absent. */
  webRoot?: string | null;
}

export const WORK_BODY_LIMIT = 1024 * 1024;

/** The work-item service as a Fastify app that never listens: `main` or a test decides that. */
export async function buildWorkApp({ config, logger, webRoot, ...deps }: WorkAppDeps): Promise<HttpApp> {
  const tracing = await startTracing(config.tracing, TRACED_SERVICES.work, logger);
  const database = traceDatabase(deps.database, tracing);
  const auth = await createAuthParts(config, database, logger);
  const app = await createHttpApp({
    logger,
    tracing,
    trustProxy: config.trustProxy,
    access: auth.access,
    bodyLimit: WORK_BODY_LIMIT,
    title: 'agentdesk work-item service',
    description: 'Work items dispatched to agents, tracked through their lifecycle, grouped into projects.',
    version: '0.1.0',
  });
  // The store signals each commit that appended events; the hub and the waiting claims listen.
  const commits = createSignal();
  const hub = await createEventHub(database, logger);
  const store = createWorkStore(database, commits.fire);
  const observer = createWorkCounters(app.metricsRegistry, config.metrics.maxTypes);
  const recent = createRecentItems();
  const claims = createClaimService({ store, database, logger, recent, observer });
  commits.listen(() => hub.committed());
  commits.listen(claims.wake);
  const work = createWorkService({ store, recent, observer });
  const statsStore = createStatsStore(database);
  const stats = createStatsService({ store: statsStore, maxTypes: config.metrics.maxTypes });
  // The item gauges read the maintained counts (src/work/stats), never a scan of work_items.
  registerWorkGauges(app.metricsRegistry, { source: stats, counters: observer, claims, hub, logger });
  registerDatabaseMetrics(app, app.metricsRegistry, database);
  const sweeper = startLeaseSweeper({ store, work, logger });
  const compactor = startStatsCompactor({ store: statsStore, logger });
  app.addHook('preClose', async () => {
    await claims.close();
    await sweeper.stop();
    await compactor.stop();
  });
  // Before the item routes, so /work/stats is never read as an item id.
  registerStatsRoutes(app, stats);
  registerWorkRoutes(app, work, claims);
  registerProjectRoutes(app, createProjectService({ store }));
  registerEventRoutes(app, hub);
  await registerIntake(app, { config, database, logger, work: workForIntake(store) });
  registerHealthRoute(app, database);
  registerTokenRoutes(app, createTokenService({ store: auth.store, authenticator: auth.authenticator }));
  registerSessionRoutes(app, { config: config.auth, authenticator: auth.authenticator, gate: app.accessGate });
  app.addHook('onClose', () => auth.authenticator.close());
  registerClassifyProxy(app, config.classifyUrl, relayTimeoutMs(config.llm), tracing);
  // The services share the database: the UI's dashboard reads usage here, on its one origin.
  registerUsageRoute(app, '/ui-api/classify-usage', createUsageReader(createUsageStore(database), config.llm.prices), 'ui');
  registerMcpRoutes(app, { auth: config.auth, host: config.host });
  registerMcpSetupRoute(app);
  await registerWebUi(app, webRoot);
  // Last, so the spans of everything closing before it are still sent.
  app.addHook('onClose', () => tracing.shutdown());
  return app;
}
