// One timed phase of the queue benchmark, alike for agentdesk and the anchors: W loops of one operation each, from
// their start to the last successful step; the empty step that ends a loop (a 204, an empty fetch) is not counted.

export interface PhaseResult {
  ok: number;
  seconds: number;
  per_s: number;
  /** Latency of one step (for a cycle: the fetch and the completion together), in ms. */
  p50_ms: number;
  p99_ms: number;
  /** CPU the measuring process spent in the phase (user + system), in ms. */
  client_cpu_ms: number;
}

/**
 * A step does one operation and says whether it did one (false: nothing left, the loop ends;
 * `LAST_WRITE`: nothing left, but the step still wrote, so the phase ends after it).
 */
export type Step = (worker: number) => Promise<boolean | typeof LAST_WRITE>;
export const LAST_WRITE = 'last write';

export function summarize(ok: number, startedAt: number, endedAt: number, times: number[], cpuMs: number): PhaseResult {
  const sorted = Float64Array.from(times).sort();
  const at = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
  const seconds = Math.max(endedAt - startedAt, 1e-3) / 1_000;
  return {
    ok,
    seconds: round(seconds, 3),
    per_s: Math.round(ok / seconds),
    p50_ms: round(at(0.5)),
    p99_ms: round(at(0.99)),
    client_cpu_ms: Math.round(cpuMs),
  };
}

export function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
}

export async function drive(workers: number, step: Step): Promise<PhaseResult> {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  let endedAt = startedAt;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (;;) {
        const began = performance.now();
        const did = await step(worker);
        if (did === LAST_WRITE) endedAt = Math.max(endedAt, performance.now());
        if (did !== true) return;
        endedAt = performance.now();
        times.push(endedAt - began);
      }
    }),
  );
  return summarize(times.length, startedAt, endedAt, times, cpuSince(cpu));
}

/** A counter the submit loops share, so that exactly `total` operations run between them. */
export function quota(total: number): () => boolean {
  let taken = 0;
  return () => {
    if (taken >= total) return false;
    taken += 1;
    return true;
  };
}

export function round(value: number, digits = 2): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

/** The item or job every system is given: the same small JSON. */
export const BENCH_JOB = {
  type: 'bench',
  description: 'Benchmark item: summarize the thread and draft a reply',
  priority: 2,
} as const;
