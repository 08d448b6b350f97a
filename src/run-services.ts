import { fileURLToPath } from 'node:url';
import { describeStore } from './shared/process/banner.js';
import { ConfigError } from './shared/config/config.js';
import { describeMail } from './shared/config/mail.js';
import { createLogger, isPretty } from './shared/observability/logger.js';
import { DatabaseOpenError, type Opened, openFromEnvironment } from './shared/process/open-from-env.js';
import type { RunningService } from './shared/http/server.js';

// Starting the services, shared by `npm start` (src/main.ts) and `agentdesk serve` (the CLI), so the two cannot
// drift. The process's main: it reads the environment it is given, once, and exits on a start-up failure.

export const SERVICES = ['all', 'work', 'classify'] as const;
export type Selection = (typeof SERVICES)[number];

/** What `npm start` runs (dist/src/main.js), and each service process `all` starts. */
const SERVICES_MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

const SDK_ENVIRONMENT_INPUTS = ['OPENAI_CUSTOM_HEADERS', 'ANTHROPIC_CUSTOM_HEADERS'] as const;

async function start(selection: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (!SERVICES.includes(selection as Selection)) {
    process.stderr.write(`unknown service "${selection}"; expected one of ${SERVICES.join(', ')}\n`);
    process.exit(2);
  }
  let opened: Opened;
  try {
    opened = await openFromEnvironment(
      env,
      (config) => createLogger(config.logLevel, undefined, config.logFormat),
      (logger) => {
        // The provider SDKs read these at every request and no constructor option turns them off;
        // headers we did not choose must not reach a provider, so they are dropped here, once.
        for (const name of SDK_ENVIRONMENT_INPUTS) {
          if (env[name] !== undefined) {
            logger.warn({ variable: name }, 'ignored: provider settings come only from LLM_* variables');
            delete env[name];
          }
        }
      },
    );
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof DatabaseOpenError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { config, logger, database } = opened;
  const banner = isPretty(config.logFormat)
    ? { store: describeStore(config.database.url), auth: config.auth.mode, mail: describeMail(config.mail) }
    : undefined;
  // The services' code (Fastify, the SDKs, metrics) is imported only from here, once the configuration is read
  // and the database open, so a bad environment is refused quickly.
  if (selection === 'all') {
    // Each service in a process of its own (shared/process/supervise.ts), on the one database.
    // Opened above for the migrations, once, before two processes could race to apply them.
    await database.close();
    // The children run main.js, not process.argv[1]: under `agentdesk serve` that is the CLI.
    const { superviseServices } = await import('./shared/process/supervise.js');
    superviseServices(
      SERVICES_MAIN,
      [
        { name: 'work', args: ['work'] },
        { name: 'classify', args: ['classify'] },
      ],
      env,
      logger,
      banner,
    );
    return;
  }
  const services: RunningService[] = [];
  if (selection === 'work') {
    const { buildWorkApp } = await import('./services/work.js');
    services.push({
      name: 'work',
      app: await buildWorkApp({ config, database, logger }),
      port: config.workPort,
      uiPath: '/',
    });
  }
  if (selection === 'classify') {
    const { buildClassifyApp } = await import('./services/classify.js');
    services.push({
      name: 'classify',
      app: await buildClassifyApp({ config, database, logger }),
      port: config.classifyPort,
    });
  }
  const { serve } = await import('./shared/http/server.js');
  await serve(services, config.host, logger, () => database.close(), banner);
}

/**
 * Starts `selection` from `env` (process.env: the SDK inputs are deleted from it) and serves until a signal.
 * Exits 2 on a configuration error, 1 on any other start-up failure.
 */
export async function runServices(selection: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await start(selection, env);
  } catch (error) {
    process.stderr.write(`agentdesk failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
