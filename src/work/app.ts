import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import type { Database } from '../shared/db.js';
import { registerHealthRoute } from '../shared/health.js';
import { type HttpApp, createHttpApp } from '../shared/http.js';
import { createProjectService } from './project-service.js';
import { registerProjectRoutes, registerWorkRoutes } from './routes.js';
import { createWorkService } from './service.js';
import { createWorkStore } from './store.js';

export interface WorkAppDeps {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
}

export const WORK_BODY_LIMIT = 1024 * 1024;

/** The work-item service as a Fastify app that never listens: `main` or a test decides that. */
export async function buildWorkApp({ database, logger }: WorkAppDeps): Promise<HttpApp> {
  const app = await createHttpApp({
    logger,
    bodyLimit: WORK_BODY_LIMIT,
    title: 'agentdesk work-item service',
    description: 'Work items dispatched to agents, tracked through their lifecycle, grouped into projects.',
    version: '0.1.0',
  });
  const store = createWorkStore(database);
  registerWorkRoutes(app, createWorkService({ store }));
  registerProjectRoutes(app, createProjectService({ store }));
  registerHealthRoute(app, database);
  return app;
}
