import { FastifyOtelInstrumentation } from '@fastify/otel';
import { type Span, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { TracingConfig } from '../config/config.js';
import { NO_SPAN, type SpanAttributes, type SpanHandle, type TracedService, type Tracing } from './tracing.js';

// OpenTelemetry behind the Tracing port. Only tracing.ts imports this file, dynamically, when
// OTEL_EXPORTER_OTLP_ENDPOINT is set: with tracing off none of these packages is loaded.

const SCOPE = 'agentdesk';
/** How long a shutdown may take to send what is buffered. */
const EXPORT_TIMEOUT_MS = 10_000;
/** Export at least this often, so a trace shows up while someone is looking for it. */
const EXPORT_DELAY_MS = 2_000;

let processWide = false;

/** The context manager and the propagator are process-wide by nature; stateless, so the first app installs them. */
function installProcessWide(): void {
  if (processWide) return;
  processWide = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

function handleOf(span: Span): SpanHandle {
  return {
    set: (attributes) => void span.setAttributes(attributes),
    fail: (reason) => void span.setStatus({ code: SpanStatusCode.ERROR, message: reason }),
    end: () => span.end(),
  };
}

/**
 * The path only: a query string may carry what nobody meant to send to a collector. The
 * route's name, not the path, names the span, so ids stay out of span names.
 */
function nameRequestSpan(span: Span, request: FastifyRequest): void {
  const route = request.routeOptions.url;
  span.updateName(route ? `${request.method} ${route}` : request.method);
  span.setAttribute('url.path', request.url.split('?', 1)[0] ?? '/');
}

/**
 * Everything the SDK would read from OTEL_* variables is given here (nothing below main reads the
 * environment), and the provider stays local to the app, not global, so no library in the process (the
 * Anthropic SDK traces itself when it finds one) emits spans we did not choose.
 */
export function createOtelTracing(config: TracingConfig, service: TracedService, logger: Logger): Tracing {
  installProcessWide();
  const exporter = new OTLPTraceExporter({
    url: `${config.endpoint}/v1/traces`,
    headers: { ...config.headers },
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': config.serviceName ?? `agentdesk-${service}`,
      'agentdesk.service': service,
    }),
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        scheduledDelayMillis: EXPORT_DELAY_MS,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
        maxQueueSize: 2_048,
        maxExportBatchSize: 512,
      }),
    ],
  });
  const tracer = provider.getTracer(SCOPE);
  let stopped = false;
  logger.info({ endpoint: config.endpoint, service }, 'exporting traces over OTLP/HTTP');

  return {
    enabled: true,

    async span(name, attributes, work, options) {
      if (options?.onlyInTrace && trace.getSpan(context.active()) === undefined) return work(NO_SPAN);
      const span = tracer.startSpan(name, { attributes, kind: SpanKind.INTERNAL });
      try {
        return await context.with(trace.setSpan(context.active(), span), () => work(handleOf(span)));
      } catch (error) {
        // The class name, never the message: a message may quote what it failed on.
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'Error' });
        throw error;
      } finally {
        span.end();
      }
    },

    start(name: string, attributes: SpanAttributes) {
      if (trace.getSpan(context.active()) === undefined) return NO_SPAN;
      return handleOf(tracer.startSpan(name, { attributes, kind: SpanKind.CLIENT }));
    },

    propagationHeaders() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier;
    },

    async instrument(app: FastifyInstance) {
      const instrumentation = new FastifyOtelInstrumentation({
        // One span per request and one for its handler (which also carries the request's
        // context past the body parser); a span per hook would triple the count for little.
        instrumentHooks: false,
        requestHook: nameRequestSpan,
      });
      instrumentation.setTracerProvider(provider);
      await app.register(instrumentation.plugin());
    },

    async shutdown() {
      if (stopped) return;
      stopped = true;
      try {
        await provider.shutdown();
      } catch (error) {
        logger.warn({ err: { message: (error as Error).message } }, 'could not send the last spans');
      }
    },
  };
}
