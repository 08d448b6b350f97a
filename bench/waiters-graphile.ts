import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, type TaskList, makeWorkerUtils, run } from 'graphile-worker';
import pg from 'pg';
import { round } from './queue-phase.js';
import { percentile } from './waiters-agents.js';

// The anchor of `npm run bench:waiters`: graphile-worker 0.16 as its documentation runs it, a
// runner with W workers (concurrency) waiting on LISTEN/NOTIFY, and `addJob` called one job at
// a time at a fixed rate (open loop). A job's latency is from the moment its addJob was called
// to the moment its task started, both read on this process's clock.
// `node dist/bench/waiters-graphile.js '<spec as JSON>'` prints one JSON line per rate.

export interface GraphileSpec {
  url: string;
  schema: string;
  workers: number;
  warmup: number;
  rates: { per_s: number; items: number }[];
}

const TASK = 'bench';
const SETTLE_MS = 60_000;

const quietLogger = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`graphile-worker ${level}: ${message}\n`);
});

async function main(spec: GraphileSpec): Promise<void> {
  const pgPool = new pg.Pool({ connectionString: spec.url, max: spec.workers + 4, application_name: spec.schema });
  const shared = { pgPool, schema: spec.schema, logger: quietLogger };
  const utils = await makeWorkerUtils(shared);
  await utils.migrate();
  const sentAt = new Map<number, number>();
  const startedAt = new Map<number, number>();
  let onStart: (() => void) | null = null;
  const taskList: TaskList = {
    [TASK]: async (payload) => {
      const seq = (payload as { seq: number }).seq;
      if (!startedAt.has(seq)) startedAt.set(seq, performance.now());
      onStart?.();
    },
  };
  const runner = await run({ ...shared, concurrency: spec.workers, noHandleSignals: true, taskList });

  async function rate(per_s: number, items: number) {
    const first = sentAt.size;
    const seqs = Array.from({ length: items }, (_, i) => first + i);
    const began = performance.now();
    const adds: Promise<unknown>[] = [];
    for (const [i, seq] of seqs.entries()) {
      const wait = began + (i * 1000) / per_s - performance.now();
      if (wait > 1) await new Promise((done) => setTimeout(done, wait));
      sentAt.set(seq, performance.now());
      adds.push(utils.addJob(TASK, { seq }));
    }
    await Promise.all(adds);
    const done = () => seqs.every((seq) => startedAt.has(seq));
    if (!done()) {
      await new Promise<void>((settle) => {
        const timer = setTimeout(settle, SETTLE_MS);
        onStart = () => {
          if (!done()) return;
          clearTimeout(timer);
          settle();
        };
      });
      onStart = null;
    }
    const latencies = Float64Array.from(seqs.filter((seq) => startedAt.has(seq)).map((seq) => startedAt.get(seq)! - sentAt.get(seq)!)).sort();
    return {
      per_s,
      submitted: items,
      started: latencies.length,
      p50_ms: round(percentile(latencies, 0.5)),
      p99_ms: round(percentile(latencies, 0.99)),
      max_ms: round(latencies.at(-1) ?? Number.NaN),
    };
  }

  await rate(100, spec.warmup);
  for (const { per_s, items } of spec.rates) {
    process.stdout.write(`${JSON.stringify({ system: 'graphile-worker', workers: spec.workers, ...(await rate(per_s, items)) })}\n`);
  }
  await runner.stop();
  await utils.release();
  await pgPool.end();
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (invokedDirectly) {
  main(JSON.parse(process.argv[2] ?? '{}') as GraphileSpec).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`graphile-worker anchor failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
