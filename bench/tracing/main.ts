import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/shared/config/config.js';
import { openDatabase } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { createLogger } from '../../src/shared/observability/logger.js';
import { buildWorkApp } from '../../src/services/work.js';
import { freshDatabase, parseDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';

// `npm run bench:tracing [-- --db postgres]`: CPU and wall time per request of three work apps in this process,
// taking turns: tracing off, on (to a local collector that discards), off again (the noise). The "off" apps
// carry the traced one's async context tracking, which a process with tracing off everywhere has not.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '15' },
    batch: { type: 'string', default: '200' },
  },
});
const kind = parseDbKind(args.db);
const ROUNDS = Number(args.rounds);
const BATCH = Number(args.batch);
const CONCURRENCY = 20;

const PAYLOAD = JSON.stringify({ type: 'bench', description: 'a work item for the tracing bench' });

async function workApp(env: Record<string, string>): Promise<HttpApp> {
  const database = await freshDatabase(kind);
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: database.url, ...env });
  const logger = createLogger('silent');
  const opened = await openDatabase(config.database, { logger });
  const app = await buildWorkApp({ config, database: opened, logger, webRoot: null });
  app.addHook('onClose', () => opened.close());
  await app.ready();
  return app;
}

type RequestKind = 'post' | 'list';

async function batch(app: HttpApp, request: RequestKind): Promise<{ cpu: number; wall: number }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let sent = 0; sent < BATCH; sent += CONCURRENCY) {
    const responses = await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, BATCH - sent) }, () =>
        request === 'post'
          ? app.inject({
              method: 'POST',
              url: '/work',
              headers: { 'content-type': 'application/json' },
              payload: PAYLOAD,
            })
          : app.inject({ method: 'GET', url: '/work?limit=20' }),
      ),
    );
    const failed = responses.find((response) => response.statusCode >= 300);
    if (failed) throw new Error(`${request}: HTTP ${failed.statusCode} ${failed.body}`);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { cpu: (cpu.user + cpu.system) / 1000 / BATCH, wall: (performance.now() - started) / BATCH };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

runMain(async () => {
  const collector = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  const apps: Record<string, HttpApp> = {
    off: await workApp({}),
    on: await workApp({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }),
    off_again: await workApp({}),
  };
  const names = Object.keys(apps);
  try {
    for (const request of ['post', 'list'] as const) {
      for (const name of names) await batch(apps[name]!, request);
      const runs: Record<string, { cpu: number; wall: number }[]> = {};
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const name of round % 2 === 0 ? names : [...names].reverse()) {
          (runs[name] ??= []).push(await batch(apps[name]!, request));
        }
      }
      for (const name of names) {
        const measured = runs[name]!;
        process.stdout.write(
          `${JSON.stringify({
            bench: 'tracing',
            db: kind,
            request,
            tracing: name,
            cpu_ms_per_request: Number(median(measured.map((run) => run.cpu)).toFixed(3)),
            wall_ms_per_request: Number(median(measured.map((run) => run.wall)).toFixed(3)),
            requests: ROUNDS * BATCH,
          })}\n`,
        );
      }
    }
  } finally {
    for (const app of Object.values(apps)) await app.close();
    collector.close();
  }
});
