import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { freshDatabase } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { type BenchServer, startWork } from '../lib/servers.js';

// `npm run bench:wal [-- --duration 300 --clients 32 --bound-mb 256]`: the SQLite WAL under writes that never
// pause (each client submits and claims, finishing its last item), with the bound (SQLITE_WAL_MAX_MB) and without:
// the largest WAL, bytes per item, items per second, p99, and the writers' holds at a reset.

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '300' },
    clients: { type: 'string', default: '32' },
    'bound-mb': { type: 'string', default: '256' },
    /** Runs in this order; `on,off` by default. */
    modes: { type: 'string', default: 'on,off' },
  },
});

const DURATION_S = Number(args.duration);
const CLIENTS = Number(args.clients);
const BOUND_MB = Number(args['bound-mb']);
const DESCRIPTION = 'A mail-sized request that an agent will pick up and finish. '.repeat(8);

interface Sample {
  largestWalBytes: number;
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

async function request(url: string, method: string, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

/** One client: submit, then claim it (finishing the last one), until `until`. */
async function client(
  base: string,
  index: number,
  until: number,
  times: number[],
): Promise<{ items: number; errors: number }> {
  const type = `wal-${index}`;
  const agent = `agent-${index}`;
  let previous: string | null = null;
  let items = 0;
  let errors = 0;
  while (performance.now() < until) {
    const started = performance.now();
    const submitted = await request(`${base}/work`, 'POST', { type, description: DESCRIPTION });
    times.push(performance.now() - started);
    if (submitted.status !== 201) {
      errors += 1;
      continue;
    }
    items += 1;
    const claimStarted = performance.now();
    const claimed = await request(`${base}/work/claim`, 'POST', {
      agent,
      types: [type],
      ...(previous && { finish: { id: previous, status: 'completed' } }),
    });
    times.push(performance.now() - claimStarted);
    if (claimed.status === 200) previous = claimed.json.id as string;
    else {
      errors += 1;
      previous = null;
    }
  }
  return { items, errors };
}

/** The hold histogram from /metrics: its count, sum, and the bucket bound that holds its 99th percentile. */
async function holds(base: string): Promise<{ count: number; mean_s: number | null; p99_le_s: number | null }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const buckets: Array<[number, number]> = [];
  let count = 0;
  let sum = 0;
  for (const line of text.split('\n')) {
    const bucket = /^agentdesk_db_sqlite_write_hold_seconds_bucket\{le="([^"]+)"\} (\S+)/.exec(line);
    if (bucket) buckets.push([bucket[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(bucket[1]), Number(bucket[2])]);
    const total = /^agentdesk_db_sqlite_write_hold_seconds_(count|sum) (\S+)/.exec(line);
    if (total?.[1] === 'count') count = Number(total[2]);
    if (total?.[1] === 'sum') sum = Number(total[2]);
  }
  if (count === 0) return { count, mean_s: null, p99_le_s: null };
  const p99 = buckets.find(([, cumulative]) => cumulative >= 0.99 * count)?.[0] ?? null;
  return { count, mean_s: sum / count, p99_le_s: p99 };
}

async function run(mode: 'on' | 'off') {
  const database = await freshDatabase('sqlite');
  const path = database.path!;
  const boundMb = mode === 'on' ? BOUND_MB : 0;
  const server: BenchServer = await startWork(database.url, 1, undefined, { SQLITE_WAL_MAX_MB: String(boundMb) });
  const sample: Sample = { largestWalBytes: 0 };
  const sampler = setInterval(() => {
    if (existsSync(`${path}-wal`))
      sample.largestWalBytes = Math.max(sample.largestWalBytes, statSync(`${path}-wal`).size);
  }, 100);
  process.stderr.write(`bench:wal ${mode}: ${CLIENTS} clients for ${DURATION_S} s, SQLITE_WAL_MAX_MB=${boundMb}\n`);
  const started = performance.now();
  const until = started + DURATION_S * 1000;
  const times: number[] = [];
  const results = await Promise.all(
    Array.from({ length: CLIENTS }, (_, index) => client(server.url, index, until, times)),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const held = await holds(server.url);
  const peakRssMb = await server.stop();
  const items = results.reduce((sum, result) => sum + result.items, 0);
  const dbBytes = statSync(path).size;
  const sorted = Float64Array.from(times).sort();
  const line = {
    bench: 'wal',
    mode,
    bound_mb: boundMb,
    duration_s: Math.round(seconds),
    clients: CLIENTS,
    items,
    items_per_s: Math.round(items / seconds),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    largest_wal_mb: +(sample.largestWalBytes / 1048576).toFixed(1),
    db_mb: +(dbBytes / 1048576).toFixed(1),
    db_bytes_per_item: Math.round(dbBytes / Math.max(1, items)),
    request_p50_ms: +percentile(sorted, 0.5).toFixed(2),
    request_p99_ms: +percentile(sorted, 0.99).toFixed(2),
    holds: held.count,
    hold_mean_ms: held.mean_s === null ? null : +(held.mean_s * 1000).toFixed(1),
    hold_p99_le_ms: held.p99_le_s === null ? null : held.p99_le_s * 1000,
    peak_rss_mb: peakRssMb,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return line;
}

runMain(async () => {
  const lines = [];
  for (const mode of args.modes.split(',') as Array<'on' | 'off'>) lines.push(await run(mode));
  const on = lines.find((line) => line.mode === 'on');
  const off = lines.find((line) => line.mode === 'off');
  if (on && off) {
    process.stdout.write(
      `${JSON.stringify({
        bench: 'wal',
        compare: 'bound on vs off',
        largest_wal_mb: [on.largest_wal_mb, off.largest_wal_mb],
        items_per_s: [on.items_per_s, off.items_per_s],
        request_p99_ms: [on.request_p99_ms, off.request_p99_ms],
        // The bound plus one burst: what the issue asks the WAL never to pass.
        wal_within_bound: on.largest_wal_mb <= BOUND_MB * 1.5,
      })}\n`,
    );
  }
});
