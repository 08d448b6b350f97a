import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';

// How the process itself is doing, once a second at debug level: how late the event loop ran (a loop busy
// with one request delays every other) and how much memory it holds. The load tests read these lines;
// an operator turns them on with LOG_LEVEL=debug. Off, it costs nothing.

const EVERY_MS = 1_000;
/** The sampling timer's period: delays shorter than this are not seen. */
const RESOLUTION_MS = 10;

/** The histogram holds whole sampling periods; the lag is what each one ran over. */
const lagMs = (nanoseconds: number) => Math.max(0, Math.round(nanoseconds / 1e4) / 100 - RESOLUTION_MS);
const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

/** Starts the periodic line when debug is on; returns the function that stops it. */
export function logRuntimeStats(logger: Logger, services: readonly string[]): () => void {
  if (!logger.isLevelEnabled('debug')) return () => {};
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const timer = setInterval(() => {
    const memory = process.memoryUsage();
    logger.debug(
      {
        services,
        event_loop_lag_ms: {
          p50: lagMs(delay.percentile(50)),
          p99: lagMs(delay.percentile(99)),
          max: lagMs(delay.max),
        },
        rss_mb: mb(memory.rss),
        heap_used_mb: mb(memory.heapUsed),
      },
      'runtime stats',
    );
    delay.reset();
  }, EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    delay.disable();
  };
}
