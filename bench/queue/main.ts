import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  analyzeSchema,
  BENCH_DB_KINDS,
  type BenchDbKind,
  freshDatabase,
  parseDbKind,
  postgresAdminUrl,
} from '../lib/databases.js';
import { ANCHORS, type Anchor, type AnchorResult } from './queue-anchors.js';
import type { QueueClientReply } from './queue-client.js';
import { type PhaseResult, round } from '../lib/queue-phase.js';
import { sampleWaits } from '../lib/pg-waits.js';
import { benchBacklog } from './queue-backlog.js';
import { seedWaiting, timeFanOut } from './queue-dependencies.js';
import { StealMeter, cpuTicks } from '../lib/host-steal.js';
import { type BackendCpu, meterBackends } from '../lib/proc-cpu.js';
import { runMain } from '../lib/run-main.js';
import { startWork } from '../lib/servers.js';
import { runAnchor, startQueueClient } from './processes.js';

// `npm run bench:queue [-- --db sqlite|postgres|both --items 3000 --workers 16]`: N submits, then W agents loop
// claim → complete over HTTP until the queue is empty, beside pg-boss and graphile-worker on the same PostgreSQL,
// CPU per operation with each system's backends. Modes and options: bench/README.md, The agent loop.

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
    /** Comments on every item before the drain, in alternating pairs with runs without (0: the plain run). */
    comments: { type: 'string', default: '0' },
    /** Pairs (without, with comments) per store when --comments is set. */
    'comment-rounds': { type: 'string', default: '2' },
    /** Queued `bench` items waiting on a dependency, submitted before the measured items. */
    waiting: { type: 'string', default: '0' },
    /** Times the completion of an item with this many dependents; 0: not measured. */
    dependents: { type: 'string', default: '0' },
    /** A folder: the work servers run with --cpu-prof and leave their profiles there. */
    'cpu-prof': { type: 'string' },
    /** Another build's dist/src/main.js for agentdesk (before and after a change, same harness). */
    'server-main': { type: 'string' },
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
const COMMENTS = integerArg('comments', 0);
const COMMENT_ROUNDS = integerArg('comment-rounds', 1);
/** A drain with comments within 10 % of the drain without. */
const COMMENTS_TARGET = 0.9;

const TARGETS = [
  { what: 'claim_complete', over: 'pg-boss', atLeast: 1.5 },
  { what: 'claim_complete', over: 'graphile-worker', atLeast: 1.0 },
  { what: 'submit', over: 'pg-boss', atLeast: 1.0 },
  { what: 'submit', over: 'graphile-worker', atLeast: null },
] as const;

function integerArg(
  name: 'items' | 'workers' | 'warmup' | 'pool' | 'comments' | 'comment-rounds' | 'waiting' | 'dependents',
  min: number,
): number {
  const value = Number(args[name] ?? Number.NaN);
  if (Number.isInteger(value) && value >= min) return value;
  process.stderr.write(`--${name} must be an integer >= ${min}\n`);
  process.exit(2);
}

function parseBacklog(text: string): { small: number; large: number; claims: number } {
  const [small, large] = text.split(',').map(Number);
  const claims = Number(args['backlog-claims']);
  if (
    Number.isInteger(small) &&
    Number.isInteger(large) &&
    small! >= 0 &&
    large! > small! &&
    Number.isInteger(claims) &&
    claims > 0
  ) {
    return { small: small!, large: large!, claims };
  }
  process.stderr.write(
    '--backlog must be none or small,large (integers, small < large); --backlog-claims a positive integer\n',
  );
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

/** CPU per operation: the system's own process(es), its PostgreSQL backends, and both. */
function cpuPerOp(ownMs: number, pg: BackendCpu | null, ops: number) {
  const own = perOp(ownMs, ops);
  const postgres = pg?.cpu_ms == null ? null : perOp(pg.cpu_ms, ops);
  return {
    cpu_ms_per_op: { own, postgres, total: own === null || postgres === null ? null : round(own + postgres, 3) },
    ...(pg && { pg_backends: pg.backends }),
  };
}

/** What agentdesk did on PostgreSQL, to set against the anchors. */
interface Measured {
  submit: number | null;
  claimComplete: number | null;
  cycleCpuMs?: number | null;
  /** The drain whose claims finish the agent's last item (one request per cycle). */
  oneRequest?: { claimComplete: number; cycleCpuMs: number | null };
  note?: string;
}
const measured: Record<string, Measured> = {};

/** Meters the backends of `schema` while `work` runs; no schema (SQLite): nothing to meter. */
async function withBackends<T>(
  schema: string | undefined,
  work: () => Promise<T>,
): Promise<{ value: T; pg: BackendCpu | null }> {
  const meter = schema ? await meterBackends(postgresAdminUrl(), schema) : null;
  const value = await work();
  return { value, pg: meter ? await meter.stop() : null };
}

function expectReply<P extends 'submit' | 'comment' | 'drain'>(
  reply: QueueClientReply,
  phase: P,
): Extract<QueueClientReply, { phase: P }> {
  if ('error' in reply) throw new Error(`queue client, ${phase}: ${reply.error}`);
  if (reply.phase !== phase) throw new Error(`queue client answered ${reply.phase} to ${phase}`);
  return reply as Extract<QueueClientReply, { phase: P }>;
}

async function counts(url: string): Promise<Record<string, number>> {
  const response = await fetch(`${url}/work/counts?type=bench`);
  if (!response.ok) throw new Error(`GET /work/counts answered ${response.status}`);
  return (await response.json()) as Record<string, number>;
}

/** The drain's cycles per second and the server's CPU per cycle, or null when it could not run. */
async function benchAgentdesk(
  kind: BenchDbKind,
  comments = 0,
): Promise<{ per_s: number; cpu_ms: number | null } | null> {
  const talking = comments > 0 ? `, ${comments} comments per item` : '';
  progress(
    `agentdesk on ${kind}: warm-up (${WARMUP}), then ${ITEMS} submits${talking} and the drain, ${WORKERS} agents`,
  );
  const database = await freshDatabase(kind);
  const server = await startWork(
    database.url,
    POOL,
    args['cpu-prof'],
    {},
    args['server-main'] === undefined ? undefined : resolve(args['server-main']),
  );
  const client = startQueueClient({ url: server.url, workers: WORKERS });
  const shape = {
    system: 'agentdesk',
    db: kind,
    items: ITEMS,
    workers: WORKERS,
    ...(COMMENTS > 0 && { comments_per_item: comments }),
    ...(WAITING > 0 && { waiting: WAITING }),
  };
  try {
    expectReply(await client.run({ phase: 'submit', items: WARMUP }), 'submit');
    if (comments > 0) expectReply(await client.run({ phase: 'comment', per_item: comments }), 'comment');
    const warm = expectReply(await client.run({ phase: 'drain' }), 'drain');
    if (WAITING > 0) {
      progress(`agentdesk on ${kind}: ${WAITING} queued items waiting on a dependency`);
      await seedWaiting(server.url, WAITING);
    }

    let cpuBefore = server.cpuMs();
    const submitted = await withBackends(
      database.schema,
      async () => expectReply(await client.run({ phase: 'submit', items: ITEMS }), 'submit').result,
    );
    const submit = submitted.value;
    const submitCpu = server.cpuMs() - cpuBefore;
    emit({
      metric: 'submit_per_s',
      ...shape,
      op: 'POST /work',
      ...submit,
      ...cpuPerOp(submitCpu, submitted.pg, submit.ok),
      client_cpu_ms_per_op: perOp(submit.client_cpu_ms, submit.ok),
    });
    if (comments > 0) {
      cpuBefore = server.cpuMs();
      const commented = expectReply(await client.run({ phase: 'comment', per_item: comments }), 'comment').result;
      emit({
        metric: 'comment_per_s',
        ...shape,
        op: 'POST /work/{id}/comments',
        ...commented,
        server_cpu_ms_per_op: perOp(server.cpuMs() - cpuBefore, commented.ok),
      });
    }
    if (database.schema) await analyzeSchema(postgresAdminUrl(), database.schema);
    const entry: (typeof measured)[string] = { submit: submit.per_s, claimComplete: null };
    // The anchors are compared with the plain run only.
    if (comments === 0) measured[kind] = entry;

    if ('unavailable' in warm) {
      entry.note = `agentdesk claim not measured: ${warm.unavailable}`;
      emit({ metric: 'claim_complete_per_s', ...shape, skipped: warm.unavailable });
      return null;
    }

    /** One drain of the ITEMS just submitted: its figures, emitted; `finish`: one request per cycle. */
    const measureDrain = async (finish: boolean, completedBefore: number) => {
      const waits = database.schema ? await sampleWaits(postgresAdminUrl(), database.schema) : null;
      const ticksBefore = cpuTicks();
      const cpuAtStart = server.cpuMs();
      const { value: drained, pg: drainPg } = await withBackends(database.schema, async () => {
        const draining = client.run({ phase: 'drain', finish });
        return expectReply(await (waits ? waits.during(draining) : draining), 'drain');
      });
      const drainCpu = server.cpuMs() - cpuAtStart;
      const stolen = new StealMeter();
      stolen.add(ticksBefore, cpuTicks());
      const states = waits ? await waits.stop() : undefined;
      if ('unavailable' in drained)
        throw new Error(`the claim route vanished after the warm-up: ${drained.unavailable}`);
      const left = await counts(server.url);
      const result: PhaseResult = drained.result;
      const cpu = cpuPerOp(drainCpu, drainPg, result.ok);
      emit({
        metric: 'claim_complete_per_s',
        ...shape,
        loop: finish ? 'one request per cycle' : 'two requests per cycle',
        op: finish
          ? 'POST /work/claim {finish: the last item} (start)'
          : 'POST /work/claim (start) + PATCH /work/{id} completed',
        ...result,
        ...cpu,
        host_steal_pct: stolen.percent(),
        client_cpu_ms_per_op: perOp(result.client_cpu_ms, result.ok),
        claimed_distinct: drained.claimed,
        claimed_twice: drained.duplicates,
        counts_after: left,
        // Every submitted item claimed once and completed, nothing else left: else the figure lies.
        correct:
          drained.claimed === ITEMS &&
          drained.duplicates === 0 &&
          left.completed === completedBefore + ITEMS &&
          left.queued === WAITING &&
          left.in_progress === 0,
        ...(states && {
          pg_connection_states: states,
          pg_states_note: 'pg_stat_activity every 20 ms during the drain: average connections per state',
        }),
      });
      return { result, drainCpu, total: cpu.cpu_ms_per_op.total };
    };
    const two = await measureDrain(false, WARMUP);
    entry.claimComplete = two.result.per_s;
    entry.cycleCpuMs = two.total;
    if (comments === 0) {
      // The same agents again, each finishing its item with its next claim.
      expectReply(await client.run({ phase: 'submit', items: ITEMS }), 'submit');
      if (database.schema) await analyzeSchema(postgresAdminUrl(), database.schema);
      const one = await measureDrain(true, WARMUP + ITEMS);
      entry.oneRequest = { claimComplete: one.result.per_s, cycleCpuMs: one.total };
    }
    const result = two.result;
    const drainCpu = two.drainCpu;
    if (DEPENDENTS > 0) {
      progress(`agentdesk on ${kind}: completing an item with ${DEPENDENTS} dependents`);
      const times = await timeFanOut(server.url, DEPENDENTS, 5);
      emit({
        metric: 'complete_with_dependents_ms',
        db: kind,
        dependents: DEPENDENTS,
        op: 'PATCH /work/{id} completed',
        runs_ms: times,
        min_ms: Math.min(...times),
        max_ms: Math.max(...times),
      });
    }
    return { per_s: result.per_s, cpu_ms: perOp(drainCpu, result.ok) };
  } finally {
    await client.stop();
    await server.stop();
  }
}

async function benchAnchor(anchor: Anchor): Promise<AnchorResult> {
  progress(`${anchor}: warm-up (${WARMUP}), then ${ITEMS} adds and the drain, ${WORKERS} workers`);
  const { schema } = await freshDatabase('postgres');
  const result = await runAnchor({
    anchor,
    url: postgresAdminUrl(),
    schema: schema ?? '',
    items: ITEMS,
    warmup: WARMUP,
    workers: WORKERS,
    pool: POOL,
  });
  const shape = { system: anchor, version: result.version, db: 'postgres', items: ITEMS, workers: WORKERS };
  const ops =
    anchor === 'pg-boss'
      ? { add: 'send', cycle: 'fetch (batchSize 1) + complete' }
      : { add: 'addJob (makeWorkerUtils)', cycle: 'run(): concurrency W, no-op task (get_job + complete_job)' };
  emit({
    metric: 'submit_per_s',
    ...shape,
    op: ops.add,
    ...result.add,
    ...cpuPerOp(result.add.client_cpu_ms, result.add_pg, result.add.ok),
  });
  emit({
    metric: 'claim_complete_per_s',
    ...shape,
    op: ops.cycle,
    ...result.cycles,
    ...cpuPerOp(result.cycles.client_cpu_ms, result.cycles_pg, result.cycles.ok),
    host_steal_pct: result.cycles_steal_pct,
    left_after: result.left_after,
    correct: result.cycles.ok === ITEMS && result.left_after === 0,
  });
  return result;
}

/** agentdesk's server + PostgreSQL CPU per cycle over each anchor's process + PostgreSQL CPU per job. */
const CPU_TARGETS = { 'graphile-worker': 2, 'pg-boss': null } as const satisfies Record<Anchor, number | null>;

function compare(results: Partial<Record<Anchor, AnchorResult>>): void {
  const ours = measured.postgres;
  if (!ours) return;
  const loops = [
    { loop: 'two requests per cycle', claimComplete: ours.claimComplete, cycleCpuMs: ours.cycleCpuMs ?? null },
    ...(ours.oneRequest ? [{ loop: 'one request per cycle', ...ours.oneRequest }] : []),
  ];
  for (const { loop, cycleCpuMs } of loops) {
    for (const [over, atMost] of Object.entries(CPU_TARGETS) as [Anchor, number | null][]) {
      const anchor = results[over];
      if (!anchor || cycleCpuMs === null || anchor.cycles_pg.cpu_ms === null || anchor.cycles.ok === 0) continue;
      const theirs = round((anchor.cycles.client_cpu_ms + anchor.cycles_pg.cpu_ms) / anchor.cycles.ok, 3);
      const ratio = round(cycleCpuMs / theirs);
      emit({
        metric: 'cpu_ratio',
        what: 'claim_complete',
        loop,
        db: 'postgres',
        over,
        agentdesk_cpu_ms_per_op: cycleCpuMs,
        anchor_cpu_ms_per_op: theirs,
        ratio,
        ...(atMost !== null && { target: `<= ${atMost}`, met: ratio <= atMost }),
      });
    }
  }
  for (const target of TARGETS) {
    const anchor = results[target.over];
    if (!anchor) continue;
    const theirs = target.what === 'submit' ? anchor.add.per_s : anchor.cycles.per_s;
    const ofLoops =
      target.what === 'submit'
        ? [{ loop: undefined, per_s: ours.submit }]
        : loops.map(({ loop, claimComplete }) => ({ loop, per_s: claimComplete }));
    for (const { loop, per_s } of ofLoops) {
      const ratio = per_s === null ? null : round(per_s / theirs);
      emit({
        metric: 'ratio',
        what: target.what,
        ...(loop && { loop }),
        db: 'postgres',
        over: target.over,
        agentdesk_per_s: per_s,
        anchor_per_s: theirs,
        ratio,
        ...(target.atLeast !== null && {
          target: `>= ${target.atLeast}`,
          met: ratio === null ? null : ratio >= target.atLeast,
        }),
        ...(ratio === null && ours.note && { note: ours.note }),
      });
    }
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * Alternating pairs on one store, without and with comments; then the ratio of their drains.
 * The server's CPU per cycle is set beside the throughput: on a shared machine it moves less
 * with the load than cycles per second do.
 */
async function benchComments(kind: BenchDbKind): Promise<void> {
  const without: number[] = [];
  const withComments: number[] = [];
  const cpuWithout: Array<number | null> = [];
  const cpuWith: Array<number | null> = [];
  for (let pair = 0; pair < COMMENT_ROUNDS; pair += 1) {
    const plain = await benchAgentdesk(kind, 0);
    const talking = await benchAgentdesk(kind, COMMENTS);
    if (plain === null || talking === null) return;
    without.push(plain.per_s);
    withComments.push(talking.per_s);
    cpuWithout.push(plain.cpu_ms);
    cpuWith.push(talking.cpu_ms);
  }
  const ratio = round(median(withComments) / median(without));
  emit({
    metric: 'comments_ratio',
    db: kind,
    comments_per_item: COMMENTS,
    pairs: COMMENT_ROUNDS,
    without_per_s: without,
    with_per_s: withComments,
    pair_ratios: withComments.map((value, i) => round(value / without[i]!)),
    server_cpu_ms_per_cycle_without: cpuWithout,
    server_cpu_ms_per_cycle_with: cpuWith,
    ratio_of_medians: ratio,
    target: `>= ${COMMENTS_TARGET}`,
    met: ratio >= COMMENTS_TARGET,
  });
}

async function main(): Promise<void> {
  emit({
    metric: 'setup',
    items: ITEMS,
    workers: WORKERS,
    warmup_items: WARMUP,
    stores: kinds,
    server: `node ${args['server-main'] ?? 'dist/src/main.js'} work, LOG_LEVEL=warn`,
    client: 'bench/queue/queue-client.ts: one process, undici request on a keep-alive Pool of W connections',
    ...(COMMENTS > 0 && { comments_per_item: COMMENTS, comment_rounds: COMMENT_ROUNDS }),
    anchors: COMMENTS > 0 ? [] : anchors.map((anchor) => `${anchor}: own process, fresh schema on the same PostgreSQL`),
    pg_pool_per_system: POOL,
    cpus: cpus().length,
    loadavg_1m: round(loadavg()[0] ?? Number.NaN),
    node: process.version,
  });
  if (anchors.length > 0 && COMMENTS === 0 && !kinds.includes('postgres'))
    progress('the anchors run on PostgreSQL only: --db postgres or both to run them');
  const results: Partial<Record<Anchor, AnchorResult>> = {};
  for (const kind of COMMENTS > 0 ? kinds : []) await benchComments(kind);
  for (const kind of COMMENTS > 0 ? [] : kinds) {
    await benchAgentdesk(kind);
    // The anchors right after agentdesk on PostgreSQL, so that all three meet the same machine.
    if (kind === 'postgres') for (const anchor of anchors) results[anchor] = await benchAnchor(anchor);
  }
  // The comments run is a comparison of its own: no anchors, no backlog.
  for (const kind of BACKLOG && COMMENTS === 0 ? kinds : []) {
    progress(
      `agentdesk on ${kind}: claims by type behind a backlog of ${BACKLOG!.small}, then ${BACKLOG!.large} queued`,
    );
    await benchBacklog(kind, BACKLOG!, emit);
  }
  compare(results);
}

runMain(main);
