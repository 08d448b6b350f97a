import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { openDatabase } from '../../src/shared/db/database.js';
import { createLogger } from '../../src/shared/observability/logger.js';
import { loadMigrations } from '../../src/shared/db/migrate.js';
import { buildWorkApp } from '../../src/services/work.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { type BenchDatabase, type BenchDbKind, freshDatabase, parseDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { type SeedPlan, seedPostgres, seedSqlite } from '../lib/seed.js';
import { startWork } from '../lib/servers.js';

// `npm run bench:dashboard [-- --db sqlite|postgres|both --items 1000000]`: migration 009's backfill of items
// seeded before it, GET /work/stats and the page's first paint in Chromium, and claim + complete with the rollup
// triggers and without. See bench/README.md, The dashboard.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    items: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '50' },
    'write-seconds': { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
  },
});

const ITEMS = Number(args.items);
const REQUESTS = Number(args.requests);
const WRITE_SECONDS = Number(args['write-seconds']);
const CONCURRENCY = Number(args.concurrency);
const BUDGET_MS = 500;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const kinds: BenchDbKind[] = args.db === 'both' ? ['sqlite', 'postgres'] : [parseDbKind(args.db)];

function emit(db: BenchDbKind, line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'dashboard', db, ...line })}\n`);
}

function progress(db: BenchDbKind, message: string): void {
  process.stderr.write(`[bench:dashboard ${db}] ${message}\n`);
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Applies the migrations before 009, as a database that existed before the dashboard would have. */
async function migrateBefore009(database: BenchDatabase): Promise<void> {
  const ledger = 'CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)';
  const earlier = loadMigrations(database.kind).filter((m) => m.version < '009');
  if (database.kind === 'sqlite') {
    const db = new BetterSqlite3(database.path!);
    db.exec(ledger);
    for (const m of earlier) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run(m.version, new Date().toISOString());
    }
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query(ledger);
  for (const m of earlier) {
    await client.query(m.sql);
    await client.query('INSERT INTO schema_migrations VALUES ($1, $2)', [m.version, new Date().toISOString()]);
  }
  await client.end();
}

async function timed(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return performance.now() - started;
}

/**
 * Timed by the browser itself, not by polling the page from here. `painted` is when the numbers
 * were first painted (Element Timing's renderTime of the tiles, marked `elementtiming` in the
 * page), or when the charts' canvases went into the DOM if that was later (uPlot draws as it
 * goes in, before that frame is painted). `in_dom` is when both were in the document.
 */
const PAINT_WATCH = `
const marks = (window.__dashboardMarks = {});
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.identifier === 'dashboard-numbers') marks.numbers = Math.max(marks.numbers ?? 0, entry.renderTime || entry.loadTime);
  }
}).observe({ type: 'element', buffered: true });
new MutationObserver((_, observer) => {
  if (!document.querySelector('[data-testid="tile-created"]') || document.querySelectorAll('.chart canvas').length < 2) return;
  observer.disconnect();
  marks.inDom = performance.now();
}).observe(document, { childList: true, subtree: true });`;

/** One load of the page, in ms from the start of navigation. */
interface PaintSample {
  script_loaded: number;
  stats_answered: number;
  in_dom: number;
  painted: number;
}

const PAINT_SAMPLE = `(() => {
  const end = (part) => Math.round(performance.getEntriesByType('resource').find((e) => e.name.includes(part))?.responseEnd ?? -1);
  const marks = window.__dashboardMarks;
  return { script_loaded: end('/assets/index-'), stats_answered: end('/work/stats'), in_dom: Math.round(marks.inDom), painted: Math.round(Math.max(marks.numbers, marks.inDom)) };
})()`;

/** The median of five loads, each in a fresh browser context (nothing cached), by when it was drawn. */
async function firstPaintInChromium(url: string): Promise<PaintSample | null> {
  if (!existsSync(CHROMIUM)) return null;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const samples: PaintSample[] = [];
    for (let i = 0; i < 5; i += 1) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript({ content: `localStorage.setItem('agentdesk.user', 'bench');${PAINT_WATCH}` });
      const page = await context.newPage();
      await page.goto(url);
      // A function, not a string: the page's CSP forbids evaluating strings in it.
      await page.waitForFunction(
        () => {
          const marks = (globalThis as { __dashboardMarks?: { numbers?: number; inDom?: number } }).__dashboardMarks;
          return marks?.numbers !== undefined && marks.inDom !== undefined;
        },
        undefined,
        { timeout: 30_000 },
      );
      samples.push((await page.evaluate(PAINT_SAMPLE)) as PaintSample);
      await context.close();
    }
    samples.sort((a, b) => a.painted - b.painted);
    return samples[Math.floor(samples.length / 2)]!;
  } finally {
    await browser.close();
  }
}

async function readPath(kind: BenchDbKind): Promise<void> {
  const database = await freshDatabase(kind);
  await migrateBefore009(database);
  const now = Date.now();
  const plan: SeedPlan = { startMs: now - 7 * 24 * 3_600_000, spanMs: 7 * 24 * 3_600_000 - 60_000, plannedRows: ITEMS };
  progress(kind, `seeding ${ITEMS} items over the last 7 days`);
  const seedStarted = performance.now();
  if (kind === 'sqlite') seedSqlite(database.path!, 0, ITEMS, plan);
  else await seedPostgres(database.url, 0, ITEMS, plan);
  progress(kind, `seeded in ${Math.round(performance.now() - seedStarted)} ms; migration 009 backfills`);
  const migrateStarted = performance.now();
  const opened = await openDatabase(
    { url: database.url, poolSize: 2, statementTimeoutMs: 600_000 },
    { logger: createLogger('warn') },
  );
  emit(kind, { phase: 'backfill', items: ITEMS, migration_009_ms: Math.round(performance.now() - migrateStarted) });
  await opened.close();

  const server = await startWork(database.url, 10);
  try {
    const statsUrl = `${server.url}/work/stats?days=7`;
    const cold = await timed(statsUrl);
    const samples: number[] = [];
    for (let i = 0; i < REQUESTS; i += 1) samples.push(await timed(statsUrl));
    samples.sort((a, b) => a - b);
    const p50 = percentile(samples, 0.5);
    const p95 = percentile(samples, 0.95);
    emit(kind, {
      phase: 'stats',
      items: ITEMS,
      requests: REQUESTS,
      cold_ms: round(cold),
      p50_ms: round(p50),
      p95_ms: round(p95),
      budget_ms: BUDGET_MS,
      p95_ratio_to_budget: Math.round((p95 / BUDGET_MS) * 1000) / 1000,
    });
    // The page itself: index.html, then its script and stylesheet (served compressed or not, as the server does).
    const html = await (await fetch(`${server.url}/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g)].map((m) => `${server.url}/${m[1]}`);
    const pageMs =
      (await timed(`${server.url}/`)) + (await Promise.all(assets.map(timed))).reduce((a, b) => Math.max(a, b), 0);
    const paint = await firstPaintInChromium(`${server.url}/`);
    emit(kind, {
      phase: 'first_paint',
      items: ITEMS,
      page_and_assets_ms: round(pageMs),
      api_plus_page_p95_ms: round(pageMs + p95),
      chromium_first_paint_ms: paint === null ? null : paint.painted,
      chromium_marks_ms: paint,
      budget_ms: BUDGET_MS,
      ratio_to_budget: Math.round(((paint?.painted ?? pageMs + p95) / BUDGET_MS) * 1000) / 1000,
    });
  } finally {
    await server.stop();
  }
}

const TRIGGERS = {
  sqlite: [
    'work_stats_item_inserted',
    'work_stats_item_moved',
    'work_stats_item_deleted',
    'work_stats_dispatch_closed',
  ].map((name) => `DROP TRIGGER ${name}`),
  postgres: [
    'DROP TRIGGER work_stats_items_inserted ON work_items',
    'DROP TRIGGER work_stats_item_moved ON work_items',
    'DROP TRIGGER work_stats_item_deleted ON work_items',
    'DROP TRIGGER work_stats_dispatch_closed ON dispatch_log',
  ],
} as const;

/** Claim + complete cycles per second through the service (in process, no HTTP socket). */
async function cyclesPerSecond(kind: BenchDbKind, withTriggers: boolean): Promise<number> {
  const database = await freshDatabase(kind);
  const logger = createLogger('warn');
  const config = loadConfig({ LOG_LEVEL: 'warn', DATABASE_URL: database.url, DATABASE_POOL_SIZE: '10' });
  const opened = await openDatabase(config.database, { logger });
  const { sql } = await import('kysely');
  if (!withTriggers) for (const statement of TRIGGERS[kind]) await sql.raw(statement).execute(opened.kysely);
  const app = await buildWorkApp({ config, database: opened, logger, webRoot: null });
  await app.ready();
  const post = (url: string, body: unknown, method: 'POST' | 'PATCH' = 'POST') =>
    app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  for (let i = 0; i < 200; i += 1) {
    await Promise.all(
      Array.from({ length: 25 }, (_, j) => post('/work', { type: 'bench', description: `cycle ${i}-${j}` })),
    );
  }
  let cycles = 0;
  const deadline = performance.now() + WRITE_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      while (performance.now() < deadline) {
        const claimed = await post('/work/claim', { agent: `agent-${worker}`, types: ['bench'], lease_s: 60 });
        if (claimed.statusCode !== 200) break;
        const { id } = claimed.json() as { id: string };
        const done = await post(`/work/${id}`, { status: 'completed', outcome: 'success' }, 'PATCH');
        if (done.statusCode !== 200) throw new Error(`complete: ${done.statusCode} ${done.body}`);
        cycles += 1;
      }
    }),
  );
  await app.close();
  await opened.close();
  return cycles / WRITE_SECONDS;
}

async function writePath(kind: BenchDbKind): Promise<void> {
  progress(kind, 'claim + complete with and without the triggers');
  // Alternating, so drift on a shared machine hits both alike.
  const withRuns: number[] = [];
  const withoutRuns: number[] = [];
  for (let round = 0; round < 2; round += 1) {
    withoutRuns.push(await cyclesPerSecond(kind, false));
    withRuns.push(await cyclesPerSecond(kind, true));
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  emit(kind, {
    phase: 'write_path',
    concurrency: CONCURRENCY,
    cycles_per_s_with_triggers: Math.round(mean(withRuns)),
    cycles_per_s_without_triggers: Math.round(mean(withoutRuns)),
    ratio: Math.round((mean(withRuns) / mean(withoutRuns)) * 1000) / 1000,
  });
}

runMain(async () => {
  for (const kind of kinds) {
    await readPath(kind);
    await writePath(kind);
  }
});
