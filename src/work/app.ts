import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { Database } from '../shared/db.js';
import { registerHealthRoute } from '../shared/health.js';
import { type HttpApp, createHttpApp } from '../shared/http.js';
import { registerClassifyProxy } from './classify-proxy.js';
import { createEventHub, registerEventRoutes } from './events.js';
import { createProjectService } from './project-service.js';
import { registerProjectRoutes, registerWorkRoutes } from './routes.js';
import { createWorkService } from './service.js';
import { createWorkStore } from './store.js';
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
export async function buildWorkApp({ config, database, logger, webRoot }: WorkAppDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    logger,
    bodyLimit: WORK_BODY_LIMIT,
    title: 'agentdesk work-item service',
    description: 'Work items dispatched to agents, tracked through their lifecycle, grouped into projects.',
    version: '0.1.0',
  });
  // The hub reads the event log; the store tells it when events have committed.
  const hub = await createEventHub(database, logger);
  const store = createWorkStore(database, () => hub.committed());
  registerWorkRoutes(app, createWorkService({ store }));
  registerProjectRoutes(app, createProjectService({ store }));
  registerEventRoutes(app, hub);
  registerHealthRoute(app, database);
  const proxyTimeoutMs = config.llm.timeoutMs * (config.llm.maxRetries + 1) + 5_000;
  registerClassifyProxy(app, config.classifyUrl, proxyTimeoutMs);
  await registerWebUi(app, webRoot);
  return app;
}
