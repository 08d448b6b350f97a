import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, type TaskList, type WorkerEvents, makeWorkerUtils, run } from 'graphile-worker';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { analyzeSchema } from '../lib/databases.js';
import { StealMeter, cpuTicks } from '../lib/host-steal.js';
import { type BackendCpu, meterBackends } from '../lib/proc-cpu.js';
import { BENCH_JOB, cpuSince, drive, type PhaseResult, quota, summarize } from '../lib/queue-phase.js';

// The anchors of bench:queue, pg-boss and graphile-worker, used as their documentation shows, each in a child
// process of its own and a fresh schema: a warm-up, N adds by W adders, then W workers taking one job at a time.
// `node dist/bench/queue/queue-anchors.js '<spec as JSON>'` prints one JSON line.

export const ANCHORS = ['pg-boss', 'graphile-worker'] as const;
export type Anchor = (typeof ANCHORS)[number];

export interface AnchorSpec {
  anchor: Anchor;
  /** A PostgreSQL URL without a search_path: both libraries name their schema in every query. */
  url: string;
  schema: string;
  items: number;
  warmup: number;
  workers: number;
  /** Connections in the library's pool. */
  pool: number;
}

export interface AnchorResult {
  anchor: Anchor;
  version: string;
  add: PhaseResult;
  cycles: PhaseResult;
  /** CPU of the PostgreSQL backends serving the library (its application_name) in each phase. */
  add_pg: BackendCpu;
  cycles_pg: BackendCpu;
  /** The host's steal over the drain, percent of every core's time (null off Linux). */
  cycles_steal_pct: number | null;
  /** Jobs the library still holds as not done after the drain: must be 0. */
  left_after: number;
}

const QUEUE = 'bench';

/** Runs one phase with the library's backends metered, and the host's steal over it. */
async function metered(
  spec: AnchorSpec,
  phase: () => Promise<PhaseResult>,
): Promise<{ result: PhaseResult; pg: BackendCpu; steal_pct: number | null }> {
  const meter = await meterBackends(spec.url, spec.schema);
  const before = cpuTicks();
  const result = await phase();
  const steal = new StealMeter();
  steal.add(before, cpuTicks());
  return { result, pg: await meter.stop(), steal_pct: steal.percent() };
}

const { type: _type, ...PAYLOAD } = BENCH_JOB;

// pg-boss 10: `send` to a queue made by `createQueue`; each worker loops `fetch` with batchSize 1, then `complete`.
// Default constructor options but `schema` and `max`.
async function benchPgBoss(spec: AnchorSpec): Promise<AnchorResult> {
  const boss = new PgBoss({
    connectionString: spec.url,
    schema: spec.schema,
    max: spec.pool,
    application_name: spec.schema,
  });
  boss.on('error', (error) => process.stderr.write(`pg-boss: ${error.message}\n`));
  await boss.start();
  await boss.createQueue(QUEUE);

  const add = (count: number) => {
    const take = quota(count);
    return drive(spec.workers, async () => {
      if (!take()) return false;
      if ((await boss.send(QUEUE, PAYLOAD)) === null) throw new Error('pg-boss send returned no id');
      return true;
    });
  };
  const drain = () =>
    drive(spec.workers, async () => {
      const [job] = await boss.fetch(QUEUE, { batchSize: 1 });
      if (!job) return false;
      await boss.complete(QUEUE, job.id);
      return true;
    });

  await add(spec.warmup);
  await drain();
  const added = await metered(spec, () => add(spec.items));
  await analyzeSchema(spec.url, spec.schema);
  const cycles = await metered(spec, drain);
  const leftAfter = await boss.getQueueSize(QUEUE, { before: 'completed' });
  await boss.stop({ graceful: false, wait: true });
  return {
    anchor: 'pg-boss',
    version: versionOf('pg-boss'),
    add: added.result,
    cycles: cycles.result,
    add_pg: added.pg,
    cycles_pg: cycles.pg,
    cycles_steal_pct: cycles.steal_pct,
    left_after: leftAfter,
  };
}

/** Warnings and errors only: at info graphile-worker logs a line per job. */
const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`graphile-worker ${level}: ${message}\n`);
});

// graphile-worker 0.16: `addJob` from `makeWorkerUtils`; the drain is its own runner (`run`) with concurrency W and
// a no-op task, as it is meant to be used: one get_job and one DELETE per job (0.16 has no local queue and no batched
// completion). The phase runs from the first fetch to the Nth `job:complete` event, sent after its query returned.
async function benchGraphileWorker(spec: AnchorSpec): Promise<AnchorResult> {
  // One pool for the utils and the runners, warmed by the warm-up like the others' pools.
  const pgPool = new pg.Pool({ connectionString: spec.url, max: spec.pool, application_name: spec.schema });
  const shared = { pgPool, schema: spec.schema, logger: quietLogger };
  const utils = await makeWorkerUtils(shared);
  await utils.migrate();
  const taskList: TaskList = { [QUEUE]: async () => {} };

  const add = (count: number) => {
    const take = quota(count);
    return drive(spec.workers, async () => {
      if (!take()) return false;
      await utils.addJob(QUEUE, PAYLOAD);
      return true;
    });
  };

  async function drain(count: number): Promise<PhaseResult> {
    // No job, no runner: the end would be the Nth completion, which never comes for N = 0.
    if (count === 0) return summarize(0, 0, 0, [], 0);
    const events: WorkerEvents = new EventEmitter();
    const times: number[] = [];
    const started = new Map<string, number>();
    let startedAt = Number.NaN;
    let endedAt = Number.NaN;
    const cpu = process.cpuUsage();
    const finished = new Promise<void>((resolveAll, rejectAll) => {
      events.on('worker:getJob:start', () => {
        if (Number.isNaN(startedAt)) startedAt = performance.now();
      });
      events.on('job:start', ({ job }) => started.set(job.id, performance.now()));
      events.on('job:complete', ({ job, error }) => {
        if (error) return rejectAll(new Error(`graphile-worker job ${job.id} failed: ${String(error)}`));
        endedAt = performance.now();
        times.push(endedAt - (started.get(job.id) ?? endedAt));
        if (times.length === count) resolveAll();
      });
    });
    const runner = await run({ ...shared, concurrency: spec.workers, noHandleSignals: true, taskList, events });
    await finished;
    const cpuMs = cpuSince(cpu);
    await runner.stop();
    return summarize(times.length, startedAt, endedAt, times, cpuMs);
  }

  await add(spec.warmup);
  await drain(spec.warmup);
  const added = await metered(spec, () => add(spec.items));
  await analyzeSchema(spec.url, spec.schema);
  const cycles = await metered(spec, () => drain(spec.items));
  const { rows } = await pgPool.query<{ left: number }>(
    `SELECT count(*)::int AS left FROM "${spec.schema}"._private_jobs`,
  );
  await utils.release();
  await pgPool.end();
  return {
    anchor: 'graphile-worker',
    version: versionOf('graphile-worker'),
    add: added.result,
    cycles: cycles.result,
    add_pg: added.pg,
    cycles_pg: cycles.pg,
    cycles_steal_pct: cycles.steal_pct,
    left_after: rows[0]?.left ?? -1,
  };
}

function versionOf(name: Anchor): string {
  return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
}

export function benchAnchor(spec: AnchorSpec): Promise<AnchorResult> {
  switch (spec.anchor) {
    case 'pg-boss':
      return benchPgBoss(spec);
    case 'graphile-worker':
      return benchGraphileWorker(spec);
    default: {
      const never: never = spec.anchor;
      throw new Error(`unknown anchor ${String(never)}`);
    }
  }
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (invokedDirectly) {
  benchAnchor(JSON.parse(process.argv[2] ?? '{}') as AnchorSpec).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      // Either library may keep a timer or a listening connection; the measurement is done.
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(
        `anchor failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
