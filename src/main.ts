import { ConfigError, loadConfig } from './shared/config.js';
import { openDatabase } from './shared/db.js';
import { createLogger } from './shared/logger.js';
import { type RunningService, serve } from './shared/server.js';
import { buildWorkApp } from './work/app.js';

// Usage: node dist/src/main.js [all|work|classify]
const SERVICES = ['all', 'work', 'classify'] as const;
type Selection = (typeof SERVICES)[number];

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
  const database = await openDatabase(config.database, { logger });
  const services: RunningService[] = [];
  if (selection === 'all' || selection === 'work') {
    services.push({ name: 'work', app: await buildWorkApp({ config, database, logger }), port: config.workPort });
  }
  await serve(services, config.host, logger, () => database.close());
}

main().catch((error: unknown) => {
  process.stderr.write(`agentdesk failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
