import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { type BenchDatabase, type BenchDbKind, freshDatabase, keepAll, parseDbKind } from '../lib/databases.js';
import { StealMeter, cpuTicks } from '../lib/host-steal.js';
import { runMain } from '../lib/run-main.js';
import { startWork } from '../lib/servers.js';
import { firstRowsInChromium } from './first-rows.js';
import { PROJECTS, TYPES, agentName, databaseBytes, itemId, mixFor, projectId, seedDesk, typeName } from './seed.js';

// `npm run bench:scale [-- --db sqlite|postgres --items 1000000 --small 10000 --runs 200 --keep]`: a desk
// seeded in bulk at a small and a large size, then each request of the board, the dashboard and
// an agent's loop timed one at a time over HTTP, then the board's first rows in Chromium; every p99
// at the large size as a ratio to the small.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    items: { type: 'string', default: '1000000' },
    small: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '200' },
    /** Loads of the board in Chromium at the desktop and the phone width (0 leaves one out). */
    loads: { type: 'string', default: '10' },
    'phone-loads': { type: 'string', default: '5' },
    'max-seconds': { type: 'string', default: '60' },
    /** Leave the databases for EXPLAIN after the run (their URLs go to stderr); drop them by hand. */
    keep: { type: 'boolean', default: false },
  },
});
const kind: BenchDbKind = parseDbKind(args.db);
const SIZES = [Number(args.small), Number(args.items)];
const RUNS = Number(args.runs);
/** A slow endpoint stops after this long (and at least MIN_RUNS), so one miss cannot stall the run. */
const MAX_MS = Number(args['max-seconds']) * 1000;
const MIN_RUNS = 20;
const STATS_TARGET_MS = 200;
const RATIO_TARGET = 2;
const FIRST_ROWS_TARGET_MS = 1000;

const log = (line: string) => process.stderr.write(`${line}\n`);
const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const round = (ms: number) => Math.round(ms * 100) / 100;
const quantile = (sorted: Float64Array, fraction: number) =>
  sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;

function client(url: string) {
  const pool = new Pool(url, { connections: 1, pipelining: 1 });
  const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => {
    const answer = await pool.request({
      method,
      path,
      headers: { 'x-user': 'mia', ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 400)
      throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text.slice(0, 200)}`);
    return { status: answer.statusCode, body: text === '' ? null : (JSON.parse(text) as { id?: string } | null) };
  };
  return { call, close: () => pool.close() };
}

type Call = ReturnType<typeof client>['call'];

/** Each endpoint: one request (or one cycle) for run i. */
function endpoints(items: number): [string, (call: Call, i: number) => Promise<unknown>][] {
  const someItem = (i: number) => itemId(Number((BigInt(i + 1) * 7919n * 104729n) % BigInt(items)));
  const parents = Math.max(1, Math.floor(items / 100) - 1);
  const list = (query: string) => (call: Call) => call('GET', `/work?${query}&limit=50`);
  return [
    ['newest_50', (call) => call('GET', '/work?limit=50')],
    ['filter_status', (call, i) => list(`status=${['queued', 'in_progress', 'blocked', 'completed'][i % 4]}`)(call)],
    ['filter_agent', (call, i) => list(`agent=${agentName((i * 37) % 200)}`)(call)],
    ['filter_project', (call, i) => list(`project_id=${projectId(i % PROJECTS)}`)(call)],
    ['filter_type', (call, i) => list(`type=${typeName(i % TYPES)}`)(call)],
    ['filter_ready', (call) => list('ready=true')(call)],
    ['filter_parent', (call, i) => list(`parent_id=${itemId(100 * (1 + (i % parents)))}`)(call)],
    ['counts', (call) => call('GET', '/work/counts')],
    ['stats_7_days', (call) => call('GET', '/work/stats?days=7')],
    ['get_item', (call, i) => call('GET', `/work/${someItem(i)}`)],
    ['get_history', (call, i) => call('GET', `/work/${someItem(i)}/history`)],
    [
      'submit',
      (call, i) => call('POST', '/work', { type: typeName(i % TYPES), description: `Bench submit ${i}: reply to it` }),
    ],
    [
      'claim_complete',
      async (call) => {
        const claimed = await call('POST', '/work/claim', { agent: 'agent-bench' });
        const id = claimed.body?.id;
        if (!id) throw new Error('the claim found nothing to take');
        await call('PATCH', `/work/${id}`, { status: 'completed', outcome: 'success' });
      },
    ],
    [
      'claim_nothing',
      async (call) => {
        const answer = await call('POST', '/work/claim', { agent: 'agent-bench', types: ['no-such-type'] });
        if (answer.status !== 204) throw new Error(`a claim for no type answered ${answer.status}`);
      },
    ],
    ['questions_open', (call) => call('GET', '/questions?status=open')],
  ];
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : Number.NaN;
}

async function measureSize(items: number): Promise<Map<string, { median: number; p99: number }>> {
  const database: BenchDatabase = await freshDatabase(kind);
  // The service migrates the new database, then stops while the seed writes into it.
  await (await startWork(database.url, 4)).stop();
  const mix = mixFor(items);
  const seeding = performance.now();
  await seedDesk(database, mix, log);
  const seed_s = Math.round((performance.now() - seeding) / 100) / 10;
  const bytes = await databaseBytes(database);
  log(
    `${items} items seeded in ${seed_s} s, ${Math.round(bytes / 1048576)} MiB${args.keep ? ` at ${database.url}` : ''}`,
  );

  const server = await startWork(database.url, 4);
  const { call, close } = client(server.url);
  const steal = new StealMeter();
  const load = loadavg()[0];
  const results = new Map<string, { median: number; p99: number }>();
  try {
    for (const [endpoint, run] of endpoints(items)) {
      for (let i = 0; i < 5; i += 1) await run(call, RUNS + i);
      const times: number[] = [];
      const before = cpuTicks();
      const started = performance.now();
      for (let i = 0; i < RUNS && (i < MIN_RUNS || performance.now() - started < MAX_MS); i += 1) {
        const at = performance.now();
        await run(call, i);
        times.push(performance.now() - at);
      }
      steal.add(before, cpuTicks());
      const sorted = Float64Array.from(times).sort();
      const result = { median: round(quantile(sorted, 0.5)), p99: round(quantile(sorted, 0.99)) };
      results.set(endpoint, result);
      emit({
        bench: 'scale',
        db: kind,
        items,
        endpoint,
        runs: times.length,
        median_ms: result.median,
        p99_ms: result.p99,
      });
    }
    const firstRows = await firstRowsInChromium(server.url, {
      ...(Number(args.loads) > 0 && { desktop: Number(args.loads) }),
      ...(Number(args['phone-loads']) > 0 && { phone: Number(args['phone-loads']) }),
    });
    if (firstRows === null) log("no Chromium: the board's first rows are not measured");
    for (const result of firstRows ?? []) {
      results.set(`board_first_rows_${result.viewport}`, { median: result.median_ms, p99: result.p99_ms });
      emit({
        bench: 'scale',
        db: kind,
        items,
        endpoint: 'board_first_rows',
        ...result,
        target_ms: FIRST_ROWS_TARGET_MS,
        met: result.max_ms < FIRST_ROWS_TARGET_MS,
      });
    }
    emit({
      bench: 'scale',
      db: kind,
      items,
      seed_s,
      db_bytes: bytes,
      db_bytes_per_item: Math.round(bytes / items),
      rss_mb: rssMb(server.pid),
      peak_rss_mb: server.peakRssMb(),
      stats_p99_under_target: (results.get('stats_7_days')?.p99 ?? Infinity) < STATS_TARGET_MS,
      host_steal_pct: steal.percent(),
      load_avg_1m: [round(load ?? 0), round(loadavg()[0] ?? 0)],
    });
  } finally {
    await close();
    await server.stop();
  }
  return results;
}

async function main(): Promise<void> {
  const small = await measureSize(SIZES[0]!);
  const large = await measureSize(SIZES[1]!);
  if (args.keep) keepAll();
  for (const [endpoint, base] of small) {
    const at = large.get(endpoint);
    if (!at) continue;
    const ratio = Math.round((at.p99 / base.p99) * 100) / 100;
    emit({
      bench: 'scale',
      db: kind,
      endpoint,
      items: SIZES,
      p99_ms: [base.p99, at.p99],
      p99_ratio: ratio,
      target_ratio: RATIO_TARGET,
      met: ratio <= RATIO_TARGET,
    });
  }
}

runMain(main);
