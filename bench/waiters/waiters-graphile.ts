import { fork } from 'node:child_process';
import { once } from 'node:events';
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger, type TaskList, makeWorkerUtils, run } from 'graphile-worker';
import pg from 'pg';
import { Pool } from 'undici';
import { round } from '../lib/queue-phase.js';
import { percentile } from './waiters-agents.js';

// The anchor of bench:waiters: graphile-worker 0.16's runner (W workers on LISTEN/NOTIFY), open-loop `addJob`,
// latency from addJob to the task's start; with `http`, POSTed by another process to a bare node:http endpoint
// that calls addJob. `node dist/bench/waiters/waiters-graphile.js '<spec as JSON>'` prints one JSON line per rate.

export interface GraphileSpec {
  url: string;
  schema: string;
  workers: number;
  warmup: number;
  rates: { per_s: number; items: number }[];
  /** Jobs submitted over HTTP by another process, as agentdesk's items are. */
  http?: boolean;
}

interface SubmitRequest {
  url: string;
  per_s: number;
  first: number;
  items: number;
}

/** Milliseconds on the machine's clock, comparable between processes. */
function clockMs(): number {
  return performance.timeOrigin + performance.now();
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
      if (!startedAt.has(seq)) startedAt.set(seq, clockMs());
      onStart?.();
    },
  };
  const runner = await run({ ...shared, concurrency: spec.workers, noHandleSignals: true, taskList });
  const endpoint = spec.http
    ? await jobsEndpoint((seq, sent) => (sentAt.set(seq, sent), utils.addJob(TASK, { seq })))
    : null;
  const submitProcess = endpoint
    ? fork(fileURLToPath(import.meta.url), ['--submit'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : null;

  async function submitInProcess(per_s: number, seqs: number[]) {
    const began = performance.now();
    const adds: Promise<unknown>[] = [];
    for (const [i, seq] of seqs.entries()) {
      const wait = began + (i * 1000) / per_s - performance.now();
      if (wait > 1) await new Promise((done) => setTimeout(done, wait));
      sentAt.set(seq, clockMs());
      adds.push(utils.addJob(TASK, { seq }));
    }
    await Promise.all(adds);
  }

  async function rate(per_s: number, items: number) {
    const first = sentAt.size;
    const seqs = Array.from({ length: items }, (_, i) => first + i);
    if (submitProcess && endpoint) {
      submitProcess.send({ url: endpoint.url, per_s, first, items } satisfies SubmitRequest);
      const [reply] = (await once(submitProcess, 'message')) as [{ error?: string }];
      if (reply.error) throw new Error(reply.error);
    } else {
      await submitInProcess(per_s, seqs);
    }
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
    const latencies = Float64Array.from(
      seqs.filter((seq) => startedAt.has(seq)).map((seq) => startedAt.get(seq)! - sentAt.get(seq)!),
    ).sort();
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
    const submit = spec.http ? 'POST over HTTP → addJob' : 'addJob';
    process.stdout.write(
      `${JSON.stringify({ system: 'graphile-worker', workers: spec.workers, submit, ...(await rate(per_s, items)) })}\n`,
    );
  }
  submitProcess?.kill();
  endpoint?.close();
  await runner.stop();
  await utils.release();
  await pgPool.end();
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

/** POST /jobs {seq, sent}: addJob, then 201. Nothing else: the least an HTTP front can do. */
async function jobsEndpoint(
  add: (seq: number, sent: number) => Promise<unknown>,
): Promise<{ url: string; close(): void }> {
  const server = createServer((request, response) => {
    bodyOf(request)
      .then((text) => {
        const { seq, sent } = JSON.parse(text) as { seq: number; sent: number };
        return add(seq, sent);
      })
      .then(
        () => response.writeHead(201, { 'content-type': 'application/json' }).end('{}'),
        (error: unknown) => response.writeHead(500).end(String(error)),
      );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** The submitter process: jobs one at a time at a fixed rate (open loop), as bench/waiters/waiters-agents.ts submits items. */
function submitter(): void {
  let pool: Pool | null = null;
  process.on('message', (request: SubmitRequest) => {
    pool ??= new Pool(request.url, { connections: 32, pipelining: 1 });
    const jobs = pool;
    void (async () => {
      const began = performance.now();
      const posts: Promise<void>[] = [];
      for (let i = 0; i < request.items; i += 1) {
        const wait = began + (i * 1000) / request.per_s - performance.now();
        if (wait > 1) await new Promise((done) => setTimeout(done, wait));
        const body = JSON.stringify({ seq: request.first + i, sent: clockMs() });
        posts.push(
          jobs
            .request({ method: 'POST', path: '/jobs', headers: { 'content-type': 'application/json' }, body })
            .then(async ({ statusCode, body: answer }) => {
              const text = await answer.text();
              if (statusCode !== 201) throw new Error(`POST /jobs answered ${statusCode}: ${text.slice(0, 300)}`);
            }),
        );
      }
      await Promise.all(posts);
    })().then(
      () => process.send?.({}),
      (error: unknown) => process.send?.({ error: String(error) }),
    );
  });
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (invokedDirectly && process.argv[2] === '--submit') {
  submitter();
} else if (invokedDirectly) {
  main(JSON.parse(process.argv[2] ?? '{}') as GraphileSpec).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `graphile-worker anchor failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
