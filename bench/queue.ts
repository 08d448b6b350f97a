import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { analyzeSchema, BENCH_DB_KINDS, type BenchDbKind, freshDatabase, parseDbKind, postgresAdminUrl } from './databases.js';
import { ANCHORS, type Anchor, type AnchorResult } from './queue-anchors.js';
import type { QueueClientReply } from './queue-client.js';
import { type PhaseResult, round } from './queue-phase.js';
import { sampleWaits } from './pg-waits.js';
import { benchBacklog } from './queue-backlog.js';
import { seedWaiting, timeFanOut } from './queue-dependencies.js';
import { runMain } from './run-main.js';
import { runAnchor, startQueueClient, startWork } from './servers.js';

// `npm run bench:queue [-- --db sqlite|postgres|both --items 3000 --workers 16 --backlog 3000,50000
// --waiting 10000 --dependents 1000]`: the agent work
// loop of issue 13. N items submitted over HTTP (W submitters at once), then W agents each
// looping claim → complete over HTTP until the queue is empty, on each store. The server runs
// as `npm start` runs it; the agents are one light client process (bench/queue-client.ts).
// Then, on the same PostgreSQL, the anchors, each in its own process and a fresh schema
// (bench/queue-anchors.ts): pg-boss and graphile-worker doing the same N jobs with W workers.
// JSON lines on stdout (throughputs, the ratios and the targets), progress on stderr.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    items: { type: 'string', default: '3000' },
    workers: { type: 'string', default: '16' },
    /** Items (jobs) each system adds and drains first, unmeasured, so no JIT or pool is cold. */
    warmup: { type: 'string', default: '300' },
    /** PostgreSQL connections of each system (agentdesk's DATABASE_POOL_SIZE, pg-boss's max, graphile-worker's pool); default: --workers. */
    pool: { type: 'string' },
    anchors: { type: 'string', default: ANCHORS.join(',') },
    /** The backlog case (queue-backlog.ts): `small,large` queued items, or `none`. */
    backlog: { type: 'string', default: '3000,50000' },
    /** Claims timed at each backlog size. */
    'backlog-claims': { type: 'string', default: '200' },
    /** Queued `bench` items waiting on a dependency, submitted before the measured items (issue 22). */
    waiting: { type: 'string', default: '0' },
    /** Times the completion of an item with this many dependents (issue 22); 0: not measured. */
    dependents: { type: 'string', default: '0' },
    /** A folder: the work servers run with --cpu-prof and leave their profiles there. */
    'cpu-prof': { type: 'string' },
  },
});

if (!['both', ...BENCH_DB_KINDS].includes(args.db)) {
  process.stderr.write(`--db must be one of both, ${BENCH_DB_KINDS.join(', ')}\n`);
  process.exit(2);
}
const kinds: BenchDbKind[] = args.db === 'both' ? ['postgres', 'sqlite'] : [parseDbKind(args.db)];
const ITEMS = integerArg('items', 1);
const WORKERS = integerArg('workers', 1);
const WARMUP = integerArg('warmup', 0);
const WAITING = integerArg('waiting', 0);
const DEPENDENTS = integerArg('dependents', 0);
// One connection per worker for every system, so that none waits for its pool (graphile-worker
// warns below that: with 10 for 16 workers it drained about half as fast here).
const POOL = args.pool === undefined ? WORKERS : integerArg('pool', 1);
const anchors = args.anchors === 'none' ? [] : args.anchors.split(',').map(parseAnchor);
const BACKLOG = args.backlog === 'none' ? null : parseBacklog(args.backlog);

const TARGETS = [
  { what: 'claim_complete', over: 'pg-boss', atLeast: 1.5 },
  { what: 'claim_complete', over: 'graphile-worker', atLeast: 1.0 },
  { what: 'submit', over: 'pg-boss', atLeast: 1.0 },
  { what: 'submit', over: 'graphile-worker', atLeast: null },
] as const;

function integerArg(name: 'items' | 'workers' | 'warmup' | 'pool' | 'waiting' | 'dependents', min: number): number {
  const value = Number(args[name] ?? Number.NaN);
  if (Number.isInteger(value) && value >= min) return value;
  process.stderr.write(`--${name} must be an integer >= ${min}\n`);
  process.exit(2);
}

function parseBacklog(text: string): { small: number; large: number; claims: number } {
  const [small, large] = text.split(',').map(Number);
  const claims = Number(args['backlog-claims']);
  if (Number.isInteger(small) && Number.isInteger(large) && small! >= 0 && large! > small! && Number.isInteger(claims) && claims > 0) {
    return { small: small!, large: large!, claims };
  }
  process.stderr.write('--backlog must be none or small,large (integers, small < large); --backlog-claims a positive integer\n');
  process.exit(2);
}

function parseAnchor(name: string): Anchor {
  if ((ANCHORS as readonly string[]).includes(name)) return name as Anchor;
  process.stderr.write(`--anchors must be none or a comma-separated list of ${ANCHORS.join(', ')}\n`);
  process.exit(2);
}

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'queue', ...line })}\n`);
}

function progress(message: string): void {
  process.stderr.write(`[bench:queue] ${message}\n`);
}

const perOp = (cpuMs: number, ops: number) => (ops > 0 ? round(cpuMs / ops, 3) : null);

/** What agentdesk did on PostgreSQL, to set against the anchors. */
const measured: Record<string, { submit: number | null; claimComplete: number | null; note?: string }> = {};

function expectReply<P extends 'submit' | 'drain'>(reply: QueueClientReply, phase: P): Extract<QueueClientReply, { phase: P }> {
  if ('error' in reply) throw new Error(`queue client, ${phase}: ${reply.error}`);
  if (reply.phase !== phase) throw new Error(`queue client answered ${reply.phase} to ${phase}`);
  return reply as Extract<QueueClientReply, { phase: P }>;
}

async function counts(url: string): Promise<Record<string, number>> {
  const response = await fetch(`${url}/work/counts?type=bench`);
  if (!response.ok) throw new Error(`GET /work/counts answered ${response.status}`);
  return (await response.json()) as Record<string, number>;
}

async function benchAgentdesk(kind: BenchDbKind): Promise<void> {
  progress(`agentdesk on ${kind}: warm-up (${WARMUP}), then ${ITEMS} submits and the drain, ${WORKERS} agents`);
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, POOL, args['cpu-prof']);
  const client = startQueueClient({ url: server.url, workers: WORKERS });
  const shape = { system: 'agentdesk', db: kind, items: ITEMS, workers: WORKERS, ...(WAITING > 0 && { waiting: WAITING }) };
  try {
    expectReply(await client.run({ phase: 'submit', items: WARMUP }), 'submit');
    const warm = expectReply(await client.run({ phase: 'drain' }), 'drain');
    if (WAITING > 0) {
      progress(`agentdesk on ${kind}: ${WAITING} queued items waiting on a dependency`);
      await seedWaiting(server.url, WAITING);
    }

    let cpuBefore = server.cpuMs();
    const submit = expectReply(await client.run({ phase: 'submit', items: ITEMS }), 'submit').result;
    const submitCpu = server.cpuMs() - cpuBefore;
    emit({
      metric: 'submit_per_s',
      ...shape,
      op: 'POST /work',
      ...submit,
      server_cpu_ms_per_op: perOp(submitCpu, submit.ok),
      client_cpu_ms_per_op: perOp(submit.client_cpu_ms, submit.ok),
    });
    if (database.schema) await analyzeSchema(postgresAdminUrl(), database.schema);
    const entry: (typeof measured)[string] = { submit: submit.per_s, claimComplete: null };
    measured[kind] = entry;

    if ('unavailable' in warm) {
      entry.note = `agentdesk claim not measured: ${warm.unavailable}`;
      emit({ metric: 'claim_complete_per_s', ...shape, skipped: warm.unavailable });
      return;
    }

    const waits = database.schema ? await sampleWaits(postgresAdminUrl(), database.schema) : null;
    cpuBefore = server.cpuMs();
    const draining = client.run({ phase: 'drain' });
    const drained = expectReply(await (waits ? waits.during(draining) : draining), 'drain');
    const drainCpu = server.cpuMs() - cpuBefore;
    const states = waits ? await waits.stop() : undefined;
    if ('unavailable' in drained) throw new Error(`the claim route vanished after the warm-up: ${drained.unavailable}`);
    const left = await counts(server.url);
    const result: PhaseResult = drained.result;
    entry.claimComplete = result.per_s;
    emit({
      metric: 'claim_complete_per_s',
      ...shape,
      op: 'POST /work/claim (start) + PATCH /work/{id} completed',
      ...result,
      server_cpu_ms_per_op: perOp(drainCpu, result.ok),
      client_cpu_ms_per_op: perOp(result.client_cpu_ms, result.ok),
      claimed_distinct: drained.claimed,
      claimed_twice: drained.duplicates,
      counts_after: left,
      // Every submitted item claimed once and completed, nothing else left: else the figure lies.
      correct: drained.claimed === ITEMS && drained.duplicates === 0 && left.completed === ITEMS + WARMUP && left.queued === WAITING && left.in_progress === 0,
      ...(states && { pg_connection_states: states, pg_states_note: 'pg_stat_activity every 20 ms during the drain: average connections per state' }),
    });
    if (DEPENDENTS > 0) {
      progress(`agentdesk on ${kind}: completing an item with ${DEPENDENTS} dependents`);
      const times = await timeFanOut(server.url, DEPENDENTS, 5);
      emit({ metric: 'complete_with_dependents_ms', db: kind, dependents: DEPENDENTS, op: 'PATCH /work/{id} completed', runs_ms: times, min_ms: Math.min(...times), max_ms: Math.max(...times) });
    }
  } finally {
    await client.stop();
    await server.stop();
  }
}

async function benchAnchor(anchor: Anchor): Promise<AnchorResult> {
  progress(`${anchor}: warm-up (${WARMUP}), then ${ITEMS} adds and the drain, ${WORKERS} workers`);
  const { schema } = await freshDatabase('postgres');
  const result = await runAnchor({ anchor, url: postgresAdminUrl(), schema: schema ?? '', items: ITEMS, warmup: WARMUP, workers: WORKERS, pool: POOL });
  const shape = { system: anchor, version: result.version, db: 'postgres', items: ITEMS, workers: WORKERS };
  const ops = anchor === 'pg-boss' ? { add: 'send', cycle: 'fetch (batchSize 1) + complete' } : { add: 'addJob (makeWorkerUtils)', cycle: 'run(): concurrency W, no-op task (get_job + complete_job)' };
  emit({ metric: 'submit_per_s', ...shape, op: ops.add, ...result.add, process_cpu_ms_per_op: perOp(result.add.client_cpu_ms, result.add.ok) });
  emit({
    metric: 'claim_complete_per_s',
    ...shape,
    op: ops.cycle,
    ...result.cycles,
    process_cpu_ms_per_op: perOp(result.cycles.client_cpu_ms, result.cycles.ok),
    left_after: result.left_after,
    correct: result.cycles.ok === ITEMS && result.left_after === 0,
  });
  return result;
}

function compare(results: Partial<Record<Anchor, AnchorResult>>): void {
  const ours = measured.postgres;
  for (const target of TARGETS) {
    const anchor = results[target.over];
    if (!anchor || !ours) continue;
    const agentdesk = target.what === 'submit' ? ours.submit : ours.claimComplete;
    const theirs = target.what === 'submit' ? anchor.add.per_s : anchor.cycles.per_s;
    const ratio = agentdesk === null ? null : round(agentdesk / theirs);
    emit({
      metric: 'ratio',
      what: target.what,
      db: 'postgres',
      over: target.over,
      agentdesk_per_s: agentdesk,
      anchor_per_s: theirs,
      ratio,
      ...(target.atLeast !== null && { target: `>= ${target.atLeast}`, met: ratio === null ? null : ratio >= target.atLeast }),
      ...(ratio === null && ours.note && { note: ours.note }),
    });
  }
}

async function main(): Promise<void> {
  emit({
    metric: 'setup',
    items: ITEMS,
    workers: WORKERS,
    warmup_items: WARMUP,
    stores: kinds,
    server: 'node dist/src/main.js work, LOG_LEVEL=warn',
    client: "bench/queue-client.ts: one process, undici request on a keep-alive Pool of W connections",
    anchors: anchors.map((anchor) => `${anchor}: own process, fresh schema on the same PostgreSQL`),
    pg_pool_per_system: POOL,
    cpus: cpus().length,
    loadavg_1m: round(loadavg()[0] ?? Number.NaN),
    node: process.version,
  });
  if (anchors.length > 0 && !kinds.includes('postgres')) progress('the anchors run on PostgreSQL only: --db postgres or both to run them');
  const results: Partial<Record<Anchor, AnchorResult>> = {};
  for (const kind of kinds) {
    await benchAgentdesk(kind);
    // The anchors right after agentdesk on PostgreSQL, so that all three meet the same machine.
    if (kind === 'postgres') for (const anchor of anchors) results[anchor] = await benchAnchor(anchor);
  }
  for (const kind of BACKLOG ? kinds : []) {
    progress(`agentdesk on ${kind}: claims by type behind a backlog of ${BACKLOG!.small}, then ${BACKLOG!.large} queued`);
    await benchBacklog(kind, BACKLOG!, emit);
  }
  compare(results);
}

runMain(main);
