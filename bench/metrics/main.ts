import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/shared/config/config.js';
import { openDatabase } from '../../src/shared/db/database.js';
import { createLogger } from '../../src/shared/observability/logger.js';
import { buildWorkApp } from '../../src/services/work.js';
import { createStatsService } from '../../src/work/stats/service.js';
import { mostFrequentTypes, totalsByType } from '../../src/work/items/type-labels.js';
import { createStatsStore } from '../../src/work/stats/store/index.js';
import { freshDatabase, parseDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { seedPlan, seedPostgres, seedSqlite } from '../lib/seed.js';

// `npm run bench:metrics [-- --db postgres --items 100000]`: a GET /metrics scrape's median and p90 as the table
// grows, and its two item-gauge queries', which read maintained counts and so should not grow with it.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    items: { type: 'string', default: '10000,100000' },
    scrapes: { type: 'string', default: '20' },
  },
});

const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const round = (value: number) => Math.round(value * 100) / 100;

async function timings(times: number, run: () => Promise<unknown>): Promise<{ median_ms: number; p90_ms: number }> {
  const samples: number[] = [];
  await run(); // warm: statement caches, connections
  for (let i = 0; i < times; i += 1) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return {
    median_ms: round(samples[Math.floor(samples.length / 2)]!),
    p90_ms: round(samples[Math.floor(samples.length * 0.9)]!),
  };
}

async function main(): Promise<void> {
  const kind = parseDbKind(args.db);
  const sizes = args.items.split(',').map(Number);
  const scrapes = Number(args.scrapes);
  const logger = createLogger('silent');
  const database = await freshDatabase(kind);
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: database.url });
  const plan = seedPlan(Math.max(...sizes));
  let seeded = 0;
  for (const size of sizes) {
    // Migrated by the first open; seeded straight into the tables, as bench:work does.
    const opened = await openDatabase(config.database, { logger });
    if (kind === 'sqlite') seedSqlite(database.path ?? '', seeded, size, plan);
    else await seedPostgres(database.url, seeded, size, plan);
    seeded = size;
    const app = await buildWorkApp({ config, database: opened, logger, webRoot: null });
    await app.ready();
    const source = createStatsService({ store: createStatsStore(opened) });
    const scrape = await timings(scrapes, async () => {
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      if (response.statusCode !== 200) throw new Error(`GET /metrics answered ${response.statusCode}`);
    });
    const counts = await timings(scrapes, () => source.itemsByStatusAndType());
    const labelled = mostFrequentTypes(totalsByType(await source.itemsByStatusAndType()), config.metrics.maxTypes);
    const oldest = await timings(scrapes, () => source.oldestQueuedAgeSeconds(labelled, true));
    emit({
      metric: 'metrics_scrape',
      db: kind,
      items: size,
      scrape,
      items_by_status_and_type: counts,
      oldest_queued: oldest,
    });
    await app.close();
    await opened.close();
  }
}

runMain(main);
