import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { BENCH_JOB, round } from '../lib/queue-phase.js';

// The fleet of bench:waiters, in a process of its own: A agents long-polling POST /work/claim (wait_s 30, ten
// `types` filters) and one open-loop submitter, so an item's latency is read on one clock: from its POST /work
// leaving to the claim that took it answering here.

export type AgentsRequest = { phase: 'start' } | { phase: 'rate'; per_s: number; items: number } | { phase: 'stop' };

export interface RateResult {
  per_s: number;
  submitted: number;
  claimed: number;
  duplicates: number;
  /** Submitted → claimed, in ms. */
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** POST /work alone (sent → answered), in ms. */
  submit_p50_ms: number;
  submit_p99_ms: number;
}

export type AgentsReply =
  { phase: 'start'; agents: number } | { phase: 'rate'; result: RateResult } | { error: string };

export interface AgentsOptions {
  url: string;
  agents: number;
  types: string[];
}

const WAIT_S = 30;
/** How long a rate phase waits for its last items to be claimed. */
const SETTLE_MS = 60_000;

export function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

function createFleet({ url, agents, types }: AgentsOptions) {
  const agentPool = new Pool(url, {
    connections: agents,
    pipelining: 1,
    headersTimeout: (WAIT_S + 30) * 1000,
    bodyTimeout: 0,
  });
  const submitPool = new Pool(url, { connections: 32, pipelining: 1 });
  /** When each numbered item's POST left, and when it was claimed. */
  const sentAt = new Map<number, number>();
  const claimedAt = new Map<number, number>();
  let duplicates = 0;
  let onClaim: (() => void) | null = null;
  let stopping = false;

  async function agent(index: number): Promise<void> {
    const body = JSON.stringify({
      agent: `waiter-${index + 1}`,
      types: [types[index % types.length]],
      wait_s: WAIT_S,
      lease_s: 600,
    });
    while (!stopping) {
      const { statusCode, body: answer } = await agentPool.request({
        method: 'POST',
        path: '/work/claim',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await answer.text();
      if (statusCode === 204) continue;
      if (statusCode !== 200) throw new Error(`POST /work/claim answered ${statusCode}: ${text.slice(0, 300)}`);
      const now = performance.now();
      const seq = (JSON.parse(text) as { payload: { seq?: number } | null }).payload?.seq;
      if (seq === undefined) continue;
      if (claimedAt.has(seq)) duplicates += 1;
      else claimedAt.set(seq, now);
      onClaim?.();
    }
  }

  async function rate(per_s: number, items: number): Promise<RateResult> {
    const first = sentAt.size;
    const seqs = Array.from({ length: items }, (_, i) => first + i);
    const started = performance.now();
    const posts: Promise<void>[] = [];
    const submitTimes: number[] = [];
    for (const [i, seq] of seqs.entries()) {
      const due = started + (i * 1000) / per_s;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      sentAt.set(seq, performance.now());
      const body = JSON.stringify({ ...BENCH_JOB, type: types[seq % types.length], payload: { seq } });
      posts.push(
        submitPool
          .request({ method: 'POST', path: '/work', headers: { 'content-type': 'application/json' }, body })
          .then(async ({ statusCode, body: answer }) => {
            const text = await answer.text();
            if (statusCode !== 201) throw new Error(`POST /work answered ${statusCode}: ${text.slice(0, 300)}`);
            submitTimes.push(performance.now() - sentAt.get(seq)!);
          }),
      );
    }
    await Promise.all(posts);
    const done = () => seqs.every((seq) => claimedAt.has(seq));
    if (!done()) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SETTLE_MS);
        onClaim = () => {
          if (!done()) return;
          clearTimeout(timer);
          resolve();
        };
      });
      onClaim = null;
    }
    const latencies = Float64Array.from(
      seqs.filter((seq) => claimedAt.has(seq)).map((seq) => claimedAt.get(seq)! - sentAt.get(seq)!),
    ).sort();
    return {
      per_s,
      submitted: items,
      claimed: latencies.length,
      duplicates,
      p50_ms: round(percentile(latencies, 0.5)),
      p99_ms: round(percentile(latencies, 0.99)),
      max_ms: round(latencies.at(-1) ?? Number.NaN),
      submit_p50_ms: round(percentile(Float64Array.from(submitTimes).sort(), 0.5)),
      submit_p99_ms: round(percentile(Float64Array.from(submitTimes).sort(), 0.99)),
    };
  }

  return {
    start(): void {
      for (let index = 0; index < agents; index += 1) {
        agent(index).catch((error: unknown) => {
          if (stopping) return;
          process.stderr.write(`agent ${index + 1} failed: ${String(error)}\n`);
          process.exit(1);
        });
      }
    },
    rate,
    stop(): void {
      stopping = true;
      process.exit(0);
    },
  };
}

// Only when forked as the fleet: the anchor imports percentile from here, in a process of its own.
const forkedAsFleet =
  process.send !== undefined &&
  process.argv[1] !== undefined &&
  fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (forkedAsFleet) {
  const fleet = createFleet(JSON.parse(process.argv[2] ?? '{}') as AgentsOptions);
  const reply = (message: AgentsReply) => process.send?.(message);
  process.on('message', (request: AgentsRequest) => {
    switch (request.phase) {
      case 'start':
        fleet.start();
        reply({ phase: 'start', agents: 0 });
        return;
      case 'rate':
        fleet.rate(request.per_s, request.items).then(
          (result) => reply({ phase: 'rate', result }),
          (error: unknown) => reply({ error: String(error) }),
        );
        return;
      case 'stop':
        fleet.stop();
        return;
      default: {
        const never: never = request;
        throw new Error(`unknown request ${String(never)}`);
      }
    }
  });
  process.on('disconnect', () => process.exit(0));
}
