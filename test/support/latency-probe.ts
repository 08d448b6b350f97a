import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';

// A latency probe in a process of its own (`node dist/test/support/latency-probe.js <url> <per second>
// <ms>`), so that what the caller does meanwhile (drive a load, or, in a test, play a fake
// provider answering hundreds of requests) never shows up as the server's latency. It sends
// GET <url> at a steady rate, each request on its own schedule whether or not the last has
// answered (a stalled server is not given time to recover), and prints one JSON line: every
// answer's time in ms and the number of non-2xx answers and errors.

export interface ProbeResult {
  timesMs: number[];
  non2xx: number;
  errors: number;
}

const execFileAsync = promisify(execFile);

/** Runs the probe as a child process (this file, compiled) and resolves with its result. */
export async function runProbe(
  script: string,
  url: string,
  perSecond: number,
  durationMs: number,
): Promise<ProbeResult> {
  const { stdout } = await execFileAsync(process.execPath, [script, url, String(perSecond), String(durationMs)], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ProbeResult;
}

/** p50, p99 and max of the answer times, in ms. */
export function percentiles(timesMs: readonly number[]): { p50_ms: number; p99_ms: number; max_ms: number } {
  const sorted = [...timesMs].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
  return { p50_ms: at(0.5), p99_ms: at(0.99), max_ms: sorted[sorted.length - 1] ?? Number.NaN };
}

async function probe(url: string, perSecond: number, durationMs: number): Promise<ProbeResult> {
  const dispatcher = new Agent({ connections: 32 });
  const result: ProbeResult = { timesMs: [], non2xx: 0, errors: 0 };
  const sent: Promise<void>[] = [];
  const started = performance.now();
  for (let n = 0; performance.now() - started < durationMs; n += 1) {
    const due = started + (n * 1_000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    const at = performance.now();
    sent.push(
      request(url, { dispatcher }).then(
        async (response) => {
          await response.body.arrayBuffer();
          result.timesMs.push(Math.round((performance.now() - at) * 100) / 100);
          if (response.statusCode >= 300) result.non2xx += 1;
        },
        () => {
          result.errors += 1;
        },
      ),
    );
  }
  await Promise.all(sent);
  await dispatcher.close();
  return result;
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (invokedDirectly) {
  const [url, perSecond, durationMs] = process.argv.slice(2);
  probe(url!, Number(perSecond), Number(durationMs)).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error: unknown) => {
      process.stderr.write(`probe failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
}
