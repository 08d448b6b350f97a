import fastifyMetricsModule, { type IMetricsPluginOptions } from 'fastify-metrics';
import promClient, { Registry, collectDefaultMetrics } from 'prom-client';
import { Type } from 'typebox';
import type { FastifyContextConfig, FastifyPluginCallback } from 'fastify';
import type { HttpApp } from '../http/types.js';

// `GET /metrics` in the Prometheus text format. Counters are bumped where things happen (cheap); what
// needs SQL is read in a gauge's `collect`, at scrape time, never on a request's path. Each app has a
// registry of its own: tests build several apps in one process, and prom-client's global one would throw.

// fastify-metrics is CommonJS with a default export: Node hands over the module object, whose
// `default` is the plugin; read it whichever way the compiler typed the import.
type MetricsPlugin = FastifyPluginCallback<Partial<IMetricsPluginOptions>>;
const fastifyMetrics = ((fastifyMetricsModule as unknown as { default?: MetricsPlugin }).default ??
  (fastifyMetricsModule as unknown as MetricsPlugin)) as MetricsPlugin;

/** Every metric of the desk's own starts with this. */
export const METRIC_PREFIX = 'agentdesk_';

/** Seconds: from a fast read to a long poll (wait_s) or a slow provider. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

let processRegistry: Registry | null = null;

/**
 * The process's own metrics (process_*, nodejs_*), under the names stock dashboards expect: one registry
 * per process, since two apps in a process share it and its event-loop monitor should run once.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The app's registry with the process's metrics after it, as one text document. */
export async function renderMetrics(registry: Registry): Promise<string> {
  const [own, process] = await Promise.all([registry.metrics(), processMetrics().metrics()]);
  return `${own}${own.endsWith('\n') || own === '' ? '' : '\n'}${process}`;
}

/**
 * Installs request metrics: a histogram of request durations by method, route pattern (not the
 * URL: `/work/:id`, never an id) and status. Installed first, before the access hook, so its
 * timer starts for every request, the 401s and 403s that hook answers included. Routes
 * registered later are measured; unknown paths are not (a scanner would make a series per URL).
 */
export async function installRequestMetrics(app: HttpApp, registry: Registry): Promise<void> {
  await app.register(fastifyMetrics, {
    promClient,
    // Our own route (below) serves the registry: typed, documented and behind the access hook.
    endpoint: null,
    defaultMetrics: { enabled: false },
    routeMetrics: {
      enabled: { histogram: true, summary: false },
      overrides: {
        histogram: {
          name: `${METRIC_PREFIX}http_request_duration_seconds`,
          help: 'HTTP request duration in seconds, by method, route pattern and status code',
          buckets: REQUEST_BUCKETS,
          registers: [registry],
        },
        // The plugin creates its summary even when it is turned off, in prom-client's global
        // registry unless told otherwise: the second app in a process would then fail on the
        // name. It goes to a registry of its own that nothing reads.
        summary: { registers: [new Registry()] },
      },
    },
  });
}

export const METRICS_CONTENT_TYPE = promClient.register.contentType;

/** `GET /metrics`: the registry in the Prometheus text format, at the access level the root gives (a reader's). */
export function registerMetricsRoute(app: HttpApp, registry: Registry, access: FastifyContextConfig['access']): void {
  app.get(
    '/metrics',
    {
      config: { access },
      schema: {
        operationId: 'getMetrics',
        tags: ['metrics'],
        summary: 'Prometheus metrics: requests, the desk’s own counters and gauges, the database and the process',
        description:
          'The Prometheus text exposition format (version 0.0.4). Gauges that need the database are read when this is ' +
          'requested. Needs a viewer, agent or admin credential, like the rest of the desk.',
        response: {
          200: {
            description: 'Metrics in the Prometheus text format',
            content: { 'text/plain': { schema: Type.String() } },
          },
        },
      },
    },
    async (_request, reply) => reply.type(METRICS_CONTENT_TYPE).send(await renderMetrics(registry)),
  );
}

export { Registry };
