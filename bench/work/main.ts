import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type BenchDatabase, freshDatabase, parseDbKind, postgresAdminUrl } from '../lib/databases.js';
import type { LoadKind, LoadResult } from '../lib/load.js';
import { StealMeter, cpuTicks } from '../lib/host-steal.js';
import { type WaitSampler, sampleWaits } from '../lib/pg-waits.js';
import { seedPlan, seedPostgres, seedSqlite, type SeedPlan } from '../lib/seed.js';
import { runMain } from '../lib/run-main.js';
import { type BenchServer, runLoad, startWork } from '../lib/servers.js';
import { startCeiling } from './ceiling.js';
import { Tally } from '../lib/tally.js';

// `npm run bench:work [-- --db postgres --phases writes,flood,lists --slow-fsync-ms 5]`: POST /work against a bare
// ceiling, PATCH, the newest 20 under a POST flood, the filtered list at 10,000 and 1,000,000 items, peak RSS; on
// PostgreSQL also with two instances. Phases and options: bench/README.md, Work API.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    'list-connections': { type: 'string', default: '8' },
    items: { type: 'string', default: '1000000' },
    pool: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    phases: { type: 'string', default: 'writes,flood,lists' },
    'flood-connections': { type: 'string', default: '10' },
    /** Milliseconds added to every fsync/fdatasync of the work service (strace fault injection): a cloud disk. */
    'slow-fsync-ms': { type: 'string', default: '0' },
    /** A folder: the work servers of the write and flood phases run with --cpu-prof and leave their profiles there. */
    'cpu-prof': { type: 'string' },
  },
});

const kind = parseDbKind(args.db);
const DURATION_S = Number(args.duration);
const WARMUP_S = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const LIST_CONNECTIONS = Number(args['list-connections']);
const LARGE = Number(args.items);
const SMALL = 10_000;
const POOL_SIZE = Number(args.pool);
/** The ceiling and POST /work alternate in this many slices of the phase, so drift on a shared machine hits both alike. */
const ROUNDS = Math.max(1, Number(args.rounds));
/** Items each PATCH load generator cycles through: far more than its connections. */
const PATCH_ITEMS_PER_INSTANCE = 2_000;

const PHASES = new Set(args.phases.split(','));
const FLOOD_CONNECTIONS = Number(args['flood-connections']);
const SLOW_FSYNC_MS = Number(args['slow-fsync-ms']);
/** Clients reading the newest 20 items during the flood: a few boards, not a second flood. */
const FLOOD_READERS = 2;

const TARGETS = { postRatio: 0.6, listGrowth: 2, floodListP99Ms: 10 } as const;

const scratch = mkdtempSync(join(tmpdir(), 'agentdesk-bench-load-'));
const peakRss: Record<string, number> = {};

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'work', db: kind, ...line })}\n`);
}

function progress(message: string): void {
  process.stderr.write(`[bench:work ${kind}] ${message}\n`);
}

/** One load generator per server, all at once, the connections split evenly between them. */
function loadAll(
  servers: BenchServer[],
  load: LoadKind,
  connections: number,
  timing: { warmupS: number; durationS: number },
  itemFiles: string[] = [],
): Promise<LoadResult[]> {
  return Promise.all(
    servers.map((server, index) =>
      runLoad({
        kind: load,
        url: server.url,
        connections: Math.max(1, Math.round(connections / servers.length)),
        ...timing,
        ...(itemFiles[index] && { itemsFile: itemFiles[index] }),
      }),
    ),
  );
}

const PHASE = { warmupS: WARMUP_S, durationS: DURATION_S };

async function startMany(start: () => Promise<BenchServer>, count: number): Promise<BenchServer[]> {
  return Promise.all(Array.from({ length: count }, start));
}

async function stopAll(servers: BenchServer[], label: string): Promise<void> {
  const peaks = await Promise.all(servers.map((server) => server.stop()));
  peaks.forEach((peak, index) => (peakRss[`${label}${servers.length > 1 ? `#${index + 1}` : ''}`] = peak));
}

async function send(
  server: BenchServer,
  method: 'POST' | 'PATCH',
  path: string,
  body: unknown,
): Promise<{ id: string }> {
  const response = await fetch(server.url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string };
}

/** Items in progress for the PATCH phase, made through the API, one disjoint set per server. */
async function itemsInProgress(servers: BenchServer[]): Promise<string[]> {
  const files: string[] = [];
  for (const [index, server] of servers.entries()) {
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < PATCH_ITEMS_PER_INSTANCE) {
          next += 1;
          const item = await send(server, 'POST', '/work', {
            type: 'bench',
            description: 'patch target',
            agent: 'bench-agent',
          });
          await send(server, 'PATCH', `/work/${item.id}`, { status: 'in_progress' });
          ids.push(item.id);
        }
      }),
    );
    const file = join(scratch, `patch-items-${index}.json`);
    writeFileSync(file, JSON.stringify(ids));
    files.push(file);
  }
  return files;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** prom-client's monitorEventLoopDelay resolution: its histogram holds whole periods of it. */
const EVENT_LOOP_RESOLUTION_MS = 10;

/**
 * The service's event-loop delay p99 since the previous call, in ms: prom-client's
 * nodejs_eventloop_lag_p99_seconds (perf_hooks.monitorEventLoopDelay in the server), which each
 * scrape of GET /metrics reads and resets. Call once before a window to start it.
 */
async function workLoopDelayP99Ms(server: BenchServer): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const match = /^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text);
  if (!match) throw new Error('GET /metrics has no nodejs_eventloop_lag_p99_seconds');
  return round(Math.max(0, Number(match[1]) * 1_000 - EVENT_LOOP_RESOLUTION_MS));
}

/** The ceiling's own probe (bench/work/ceiling-server.ts), the same measure. */
async function ceilingLoopDelayP99Ms(server: BenchServer): Promise<number> {
  return ((await (await fetch(`${server.url}/event-loop`)).json()) as { p99_ms: number }).p99_ms;
}

/** The newest-20 list while FLOOD_CONNECTIONS flood POST /work, on a fresh database. */
async function floodPhase(): Promise<void> {
  progress(`GET /work?limit=20 while ${FLOOD_CONNECTIONS} connections flood POST /work`);
  const database = await freshDatabase(kind);
  const [server] = await startMany(
    () => startWork(database.url, POOL_SIZE, args['cpu-prof'], {}, undefined, SLOW_FSYNC_MS),
    1,
  );
  await workLoopDelayP99Ms(server!);
  const steal = new StealMeter();
  const before = cpuTicks();
  const [posts, lists] = await Promise.all([
    loadAll([server!], 'post', FLOOD_CONNECTIONS, PHASE),
    loadAll([server!], 'list_recent', FLOOD_READERS, PHASE),
  ]);
  const loopP99 = await workLoopDelayP99Ms(server!);
  steal.add(before, cpuTicks());
  const [post, list] = [new Tally(), new Tally()];
  post.add(posts);
  list.add(lists);
  const listSummary = list.summary();
  emit({
    metric: 'list_recent_under_post_flood',
    query: 'GET /work?limit=20',
    readers: FLOOD_READERS,
    flood_connections: FLOOD_CONNECTIONS,
    duration_s: DURATION_S,
    list: listSummary,
    post: post.summary(),
    event_loop_delay_p99_ms: loopP99,
    host_steal_pct: steal.percent(),
    note: "event-loop delay: the service's monitorEventLoopDelay p99 over the phase, warm-up included, less its 10 ms sampling period",
    target: `list p99 < ${TARGETS.floodListP99Ms} ms`,
    met: listSummary.p99_ms < TARGETS.floodListP99Ms,
  });
  await stopAll([server!], 'work (flood)');
}

async function writePhases(instances: number): Promise<void> {
  const shape = { instances, connections_total: CONNECTIONS, duration_s: DURATION_S };

  progress(`ceiling and POST /work alternating in ${ROUNDS} round(s), ${instances} instance(s) each`);
  const [ceilingDb, workDb] = [await freshDatabase(kind), await freshDatabase(kind)];
  const ceilings = await startMany(() => startCeiling(ceilingDb.url, POOL_SIZE), instances);
  const servers = await startMany(
    () => startWork(workDb.url, POOL_SIZE, args['cpu-prof'], {}, undefined, SLOW_FSYNC_MS),
    instances,
  );
  const [ceiling, post] = [new Tally(), new Tally()];
  const waits: WaitSampler | null = workDb.schema ? await sampleWaits(postgresAdminUrl(), workDb.schema) : null;
  // The worst slice's event-loop delay p99, of each side (the first instance's).
  const loop = { ceiling: 0, work: 0 };
  const steal = new StealMeter();
  for (let slice = 0; slice < ROUNDS; slice += 1) {
    const timing = { warmupS: slice === 0 ? WARMUP_S : 0, durationS: DURATION_S / ROUNDS };
    await ceilingLoopDelayP99Ms(ceilings[0]!);
    ceiling.add(await loadAll(ceilings, 'post', CONNECTIONS, timing));
    loop.ceiling = Math.max(loop.ceiling, await ceilingLoopDelayP99Ms(ceilings[0]!));
    await workLoopDelayP99Ms(servers[0]!);
    const before = cpuTicks();
    const posting = loadAll(servers, 'post', CONNECTIONS, timing);
    post.add(await (waits ? waits.during(posting) : posting));
    steal.add(before, cpuTicks());
    loop.work = Math.max(loop.work, await workLoopDelayP99Ms(servers[0]!));
  }
  await stopAll(ceilings, `ceiling x${instances}`);
  emit({
    metric: 'ceiling_post_per_s',
    ...shape,
    rounds: ROUNDS,
    ...ceiling.summary(),
    event_loop_delay_p99_ms: loop.ceiling,
  });
  const ratio = round(post.perSecond / ceiling.perSecond);
  emit({
    metric: 'post_work_per_s',
    ...shape,
    rounds: ROUNDS,
    ...post.summary(),
    ceiling_per_s: ceiling.perSecond,
    ratio_to_ceiling: ratio,
    event_loop_delay_p99_ms: loop.work,
    host_steal_pct: steal.percent(),
    target: `>= ${TARGETS.postRatio} of the ceiling`,
    met: ratio >= TARGETS.postRatio,
  });
  if (waits) {
    emit({
      metric: 'post_work_pg_connection_states',
      ...shape,
      pool_size_per_instance: POOL_SIZE,
      note: 'pg_stat_activity every 20 ms during POST /work (warm-up included): average connections per state',
      states: await waits.stop(),
    });
  }

  progress(`PATCH transitions, ${instances} instance(s)`);
  const files = await itemsInProgress(servers);
  const patch = new Tally();
  patch.add(await loadAll(servers, 'patch', CONNECTIONS, PHASE, files));
  emit({
    metric: 'patch_transitions_per_s',
    ...shape,
    ...patch.summary(),
    moves: `in_progress -> blocked -> in_progress ... over ${PATCH_ITEMS_PER_INSTANCE} items per instance`,
  });
  await stopAll(servers, `work x${instances} (writes)`);
}

async function seed(database: BenchDatabase, from: number, to: number, plan: SeedPlan): Promise<void> {
  progress(`seeding rows ${from}..${to - 1}`);
  const started = performance.now();
  if (database.kind === 'sqlite') seedSqlite(database.path ?? '', from, to, plan);
  else await seedPostgres(database.url, from, to, plan);
  emit({ metric: 'seed', rows: to - from, total_items: to, seconds: round((performance.now() - started) / 1_000, 1) });
}

async function measureList(servers: BenchServer[]) {
  const tally = new Tally();
  tally.add(await loadAll(servers, 'list', LIST_CONNECTIONS, PHASE));
  const { value, ...rest } = tally.summary();
  return { per_s: value, ...rest };
}

async function listPhases(): Promise<void> {
  const database = await freshDatabase(kind);
  // Started first so its migrations create the tables the seed fills.
  const server = await startWork(database.url, POOL_SIZE);
  const plan = seedPlan(LARGE);
  const shape = {
    query: 'GET /work?status=<each status in turn>&limit=100',
    connections: LIST_CONNECTIONS,
    duration_s: DURATION_S,
  };

  await seed(database, 0, SMALL, plan);
  progress(`list at ${SMALL} items`);
  const small = await measureList([server]);
  emit({ metric: 'list_by_status', items: SMALL, instances: 1, ...shape, ...small });

  await seed(database, SMALL, LARGE, plan);
  progress(`list at ${LARGE} items`);
  const large = await measureList([server]);
  const growth = round(large.p50_ms / small.p50_ms);
  emit({
    metric: 'list_by_status',
    items: LARGE,
    instances: 1,
    ...shape,
    ...large,
    p50_ratio_to_10k: growth,
    target: `p50 <= ${TARGETS.listGrowth}x the p50 at ${SMALL} items`,
    met: growth <= TARGETS.listGrowth,
  });

  if (kind === 'postgres') {
    progress(`list at ${LARGE} items, two instances`);
    const second = await startWork(database.url, POOL_SIZE);
    emit({ metric: 'list_by_status', items: LARGE, instances: 2, ...shape, ...(await measureList([server, second])) });
    await stopAll([second], 'work #2 (lists)');
  }
  await stopAll([server], 'work (lists)');
}

async function main(): Promise<void> {
  emit({
    metric: 'setup',
    server: 'node dist/src/main.js work',
    server_log_level: 'warn',
    load_generator: 'autocannon, one child process per server instance',
    ceiling:
      kind === 'sqlite'
        ? 'bench/work/ceiling-server.ts: bare Fastify, one prepared INSERT into the same work_items table, WAL with synchronous=NORMAL (no fsync per request)'
        : 'bench/work/ceiling-server.ts: bare Fastify, one prepared INSERT into the same work_items table, same durability',
    phases: [...PHASES],
    pool_size: kind === 'postgres' ? POOL_SIZE : null,
    warmup_s: WARMUP_S,
    ceiling_and_post_rounds: ROUNDS,
    slow_fsync_ms: SLOW_FSYNC_MS,
    cpus: cpus().length,
    node: process.version,
  });
  if (PHASES.has('writes')) {
    await writePhases(1);
    if (kind === 'postgres') await writePhases(2);
  }
  if (PHASES.has('flood')) await floodPhase();
  if (PHASES.has('lists')) await listPhases();
  const work = Object.entries(peakRss).filter(([label]) => label.startsWith('work'));
  emit({ metric: 'peak_rss_mb', value: Math.max(...work.map(([, mb]) => mb)), per_process: peakRss });
}

runMain(main, () => rmSync(scratch, { recursive: true, force: true }));
