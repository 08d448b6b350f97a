import type { Logger } from 'pino';
import type { HttpApp } from './http.js';
import { logRuntimeStats } from './runtime-stats.js';

export interface RunningService {
  name: string;
  app: HttpApp;
  port: number;
}

/**
 * Listens on every service, then on SIGTERM or SIGINT (or when the supervising parent goes
 * away) stops accepting, lets requests in flight finish, runs `cleanup` (closing the
 * database) and exits 0.
 */
export async function serve(
  services: RunningService[],
  host: string,
  logger: Logger,
  cleanup: () => Promise<void>,
): Promise<void> {
  for (const service of services) {
    const address = await service.app.listen({ host, port: service.port });
    logger.info({ service: service.name, address }, 'listening');
  }

  const stopStats = logRuntimeStats(logger, services.map((service) => service.name));

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    stopStats();
    logger.info({ signal }, 'shutting down');
    try {
      await Promise.all(services.map((service) => service.app.close()));
      await cleanup();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', (signal) => void stop(signal));
  process.once('SIGINT', (signal) => void stop(signal));
  // Started by `main all` (shared/supervise.ts): the channel closes when that parent is gone,
  // however it ended, and a service must not outlive it.
  if (process.send !== undefined) process.once('disconnect', () => void stop('SIGTERM'));
}
