import type { Logger } from 'pino';
import type { TracingConfig } from '../config/config.js';
import { NO_TRACING, type TracedService, type Tracing } from './tracing.js';

// Apart from the port (tracing.ts), so the OpenTelemetry implementation, which implements that
// port, is loaded from here and only when tracing is on: nothing imports it statically.

/** The tracer for one service: the no-op without a config, else OpenTelemetry, loaded now. */
export async function startTracing(
  config: TracingConfig | null,
  service: TracedService,
  logger: Logger,
): Promise<Tracing> {
  if (config === null) return NO_TRACING;
  const { createOtelTracing } = await import('./tracing-otel.js');
  return createOtelTracing(config, service, logger);
}
