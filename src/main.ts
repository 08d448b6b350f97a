import { ConfigError, loadConfig } from './shared/config.js';
import { openDatabase } from './shared/db.js';
import { createLogger } from './shared/logger.js';
import { type RunningService, serve } from './shared/server.js';
import { superviseServices } from './shared/supervise.js';
import { buildClassifyApp } from './classify/app.js';
import { buildWorkApp } from './work/app.js';

// Usage: node dist/src/main.js [all|work|classify]
// `all` (what `npm start` runs) starts each service in a process of its own (shared/supervise.ts),
// so classification load never stalls the work API's event loop; both use the one database.
const SERVICES = ['all', 'work', 'classify'] as const;
type Selection = (typeof SERVICES)[number];

const SDK_ENVIRONMENT_INPUTS = ['OPENAI_CUSTOM_HEADERS', 'ANTHROPIC_CUSTOM_HEADERS'] as const;

async function main(): Promise<void> {
  const selection = (process.argv[2] ?? 'all') as Selection;
  if (!SERVICES.includes(selection)) {
    process.stderr.write(`unknown service "${selection}"; expected one of ${SERVICES.join(', ')}\n`);
    process.exit(2);
  }
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  // The provider SDKs read these at every request and no constructor option turns them off;
  // headers we did not choose must not reach a provider, so they are dropped here, once.
  for (const name of SDK_ENVIRONMENT_INPUTS) {
    if (process.env[name] !== undefined) {
      logger.warn({ variable: name }, 'ignored: provider settings come only from LLM_* variables');
      delete process.env[name];
    }
  }
  let database;
  try {
    database = await openDatabase(config.database, { logger });
  } catch (error) {
    // Name the setting, never its value: a PostgreSQL URL may carry a password.
    process.stderr.write(`cannot open the database named by DATABASE_URL: ${(error as Error).message}\n`);
    process.exit(1);
  }
  if (selection === 'all') {
    // Opened above for the migrations, once, before two processes could race to apply them.
    await database.close();
    superviseServices([{ name: 'work', args: ['work'] }, { name: 'classify', args: ['classify'] }], logger);
    return;
  }
  const services: RunningService[] = [];
  if (selection === 'work') {
    services.push({ name: 'work', app: await buildWorkApp({ config, database, logger }), port: config.workPort });
  }
  if (selection === 'classify') {
    services.push({
      name: 'classify',
      app: await buildClassifyApp({ config, database, logger }),
      port: config.classifyPort,
    });
  }
  await serve(services, config.host, logger, () => database.close());
}

main().catch((error: unknown) => {
  process.stderr.write(`agentdesk failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
