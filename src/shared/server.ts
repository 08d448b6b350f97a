import type { Logger } from 'pino';
import type { HttpApp } from './http.js';

export interface RunningService {
  name: string;
  app: HttpApp;
  port: number;
}

/**
 * Listens on every service, then on SIGTERM or SIGINT stops accepting, lets requests in
 * flight finish, runs `cleanup` (closing the database) and exits 0.
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

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
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
}
