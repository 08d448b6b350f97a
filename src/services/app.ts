import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import {
  CSRF_PARAMETER,
  DOCUMENT_SECURITY,
  type Gate,
  SECURITY_SCHEMES,
  documentCsrf,
  installAccessControl,
  publicScope,
  type AuthParts,
  createAuthParts,
} from '../auth/index.js';
import { ACCESS } from '../auth/contract.js';
import type { Config } from '../shared/config/config.js';
import type { Database } from '../shared/db/database.js';
import type { HttpApp } from '../shared/http/types.js';
import { createHttpApp } from '../shared/http/app.js';
import { registerMetricsRoute } from '../shared/observability/metrics.js';
import { traceDatabase } from '../shared/db/traced-database.js';
import type { NamedSchemas } from '../shared/http/openapi.js';
import { startTracing } from '../shared/observability/start-tracing.js';
import type { TracedService, Tracing } from '../shared/observability/tracing.js';

// What both services start from, so the two roots (work.ts, classify.ts) differ only in the
// features they mount: tracing, the traced database, who the callers are (auth), the Fastify
// app with the access hook installed, the API description and /metrics.

export interface ServiceAppOptions {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
  service: TracedService;
  bodyLimit: number;
  title: string;
  description: string;
  version: string;
  /** The types the API description names (openapi-schemas.ts). */
  schemas: NamedSchemas;
}

export interface ServiceApp {
  app: HttpApp;
  /** The database every feature of this service uses: traced when tracing is on. */
  database: Database;
  tracing: Tracing;
  auth: AuthParts;
  /** For routes that authenticate by themselves (sign-in): the access hook's 401 and 429. */
  gate: Gate;
}

/** A service's app before its features: closing it stops nothing yet (the root adds that, in order). */
export async function buildServiceApp({ config, logger, service, ...options }: ServiceAppOptions): Promise<ServiceApp> {
  const tracing = await startTracing(config.tracing, service, logger);
  const database = traceDatabase(options.database, tracing);
  const auth = await createAuthParts(config, database, logger);
  let gate: Gate | undefined;
  const app = await createHttpApp({
    logger,
    tracing,
    trustProxy: config.trustProxy,
    requests: config.requests,
    // Under AUTH=off every caller is the open desk's admin: the desk trusts whoever it serves.
    authenticated: (request) => request.principal !== null,
    installAccess: async (target) => {
      gate = await installAccessControl(target, auth.access);
    },
    document: {
      securitySchemes: SECURITY_SCHEMES,
      security: DOCUMENT_SECURITY,
      parameters: { csrf: CSRF_PARAMETER },
      schemas: options.schemas,
      finish: documentCsrf,
    },
    bodyLimit: options.bodyLimit,
    title: options.title,
    description: options.description,
    version: options.version,
  });
  await publicScope(app, async (scope) => {
    await scope.register(swaggerUi, { routePrefix: '/docs' });
  });
  app.get(
    '/openapi.json',
    {
      config: { access: ACCESS.public },
      schema: {
        operationId: 'getOpenApiDocument',
        tags: ['openapi'],
        summary: 'This OpenAPI 3.1 document',
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'The OpenAPI document' }) },
      },
    },
    async () => app.swagger(),
  );
  registerMetricsRoute(app, app.metricsRegistry, ACCESS.read);
  if (!gate) throw new Error('the access hook was not installed');
  return { app, database, tracing, auth, gate };
}
