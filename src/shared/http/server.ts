import type { Logger } from 'pino';
import { type BannerFacts, READY_MESSAGE, type ReadyService, bannerText } from '../process/banner.js';
import type { HttpApp } from './types.js';
import { STOP_SIGNALS, whenParentGone } from '../process/parent-watch.js';
import { logRuntimeStats } from '../observability/runtime-stats.js';

export interface RunningService {
  name: string;
  app: HttpApp;
  port: number;
  /** Where this service serves a page for people, if it does: start-up says to open it. */
  uiPath?: string;
}

/** The address a browser on this machine can open: a wildcard host is not one. */
function browsableUrl(host: string, port: number, path: string): string {
  const name = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}${path}`;
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
  /** Given when a person reads the output (LOG_FORMAT): the banner's facts. */
  banner?: BannerFacts,
): Promise<void> {
  const ready: ReadyService[] = [];
  for (const service of services) {
    // Fastify logs the one line per service itself; the text names which service it is.
    await service.app.listen({
      host,
      port: service.port,
      listenTextResolver: (address) => `${service.name} listening at ${address}`,
    });
    const bound = service.app.server.address();
    // A service with no page for people links to its API's viewer, never to a 404.
    const url = browsableUrl(
      host,
      typeof bound === 'object' && bound ? bound.port : service.port,
      service.uiPath ?? '/docs',
    );
    if (service.uiPath !== undefined)
      logger.info({ service: service.name, url }, `open ${url} in a browser for the web UI`);
    ready.push({ name: service.name, url });
  }
  // Under `main all` the parent prints one banner for both services (shared/supervise.ts).
  if (process.send !== undefined) for (const service of ready) process.send({ type: READY_MESSAGE, ...service });
  else if (banner) process.stdout.write(bannerText(ready, banner));

  const stopStats = logRuntimeStats(
    logger,
    services.map((service) => service.name),
  );

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
  for (const signal of STOP_SIGNALS) process.once(signal, (received) => void stop(received));
  // Started by `main all` (shared/supervise.ts): the channel closes when that parent is gone,
  // however it ended, and a service must not outlive it. Alone (`npm run start:work`), the
  // parent is npm's sh, which may die without passing a signal on.
  if (process.send !== undefined) process.once('disconnect', () => void stop('SIGTERM'));
  else whenParentGone(() => void stop('SIGTERM'));
}
