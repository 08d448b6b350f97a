import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LoadResult, LoadSpec } from './load.js';
import { processCpuMs } from './proc-cpu.js';

// The processes a benchmark run starts: the real services as `npm start` runs them, their
// ceiling servers, the fake LLM provider and the load generators. Each is its own node process;
// a server's peak RSS is read from /proc before it stops.

/** BENCH_SERVICES_MAIN runs another build of the service (main's, say) under this run's harness, for A/B pairs. */
export const SERVICES_MAIN =
  process.env.BENCH_SERVICES_MAIN ?? fileURLToPath(new URL('../../src/main.js', import.meta.url));
export const LOAD_MAIN = fileURLToPath(new URL('./load.js', import.meta.url));
export const FAKE_PROVIDER_MAIN = fileURLToPath(new URL('./fake-provider-server.js', import.meta.url));
export const PROBE_MAIN = fileURLToPath(new URL('../../test/support/latency-probe.js', import.meta.url));

export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  /** VmHWM: the most resident memory the process has had, in MiB. */
  peakRssMb(): number;
  /** CPU time the process has used so far (all threads, user and system), in ms. */
  cpuMs(): number;
  /** Null while it runs; else how it ended and the last of its output, to tell why. */
  ended(): string | null;
  /** Lines the process has written to stdout and stderr: at LOG_LEVEL=warn, every one is a warning or worse. */
  outputLines(): number;
  /** SIGTERM, then the peak RSS it reached. */
  stop(): Promise<number>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Kills `child` if this process exits first; resolves when the child exits. */
export function track(child: ChildProcess): Promise<void> {
  children.add(child);
  return once(child, 'exit').then(() => {
    children.delete(child);
  });
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

const execFileAsync = promisify(execFile);

/** One load generator run in a process of its own (bench/lib/load.ts), so it takes no CPU from the orchestrator. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const { stdout } = await execFileAsync(process.execPath, [LOAD_MAIN, JSON.stringify(spec)], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as LoadResult;
}

function peakRssMb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Up when GET /health is a 2xx, or (for a server without one) when anything answers at all. */
type Readiness = 'healthy' | 'answering';

export async function startNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  nodeOptions: string[] = [],
  readiness: Readiness = 'healthy',
  /** A command node runs under (strace, for a slow disk): the server is then its child. */
  wrapper: string[] = [],
): Promise<BenchServer> {
  const command = [...wrapper, process.execPath, ...nodeOptions, script, ...args];
  const child = spawn(command[0]!, command.slice(1), {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  let lines = 0;
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
    output = (output + text).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  let ending = '';
  const exit = once(child, 'exit').then(([code, signal]) => {
    exited = true;
    ending = `exited with ${signal ?? `code ${code}`}`;
    children.delete(child);
  });
  const url = `http://127.0.0.1:${port}`;
  let pid = child.pid ?? -1;

  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (exited) throw new Error(`${script} exited during start-up:\n${output}`);
    try {
      const response = await fetch(`${url}/health`);
      await response.arrayBuffer();
      if (response.ok || readiness === 'answering') {
        // Under a wrapper, node is its child: measure it, and signal it (strace detaches on a signal).
        if (wrapper.length > 0)
          pid = Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0]);
        const signal = (name: NodeJS.Signals) => (wrapper.length > 0 ? process.kill(pid, name) : child.kill(name));
        return {
          url,
          pid,
          peakRssMb: () => peakRssMb(pid),
          cpuMs: () => processCpuMs(pid),
          ended: () => (exited ? `${ending}:\n${output}` : null),
          outputLines: () => lines,
          async stop() {
            const peak = peakRssMb(pid);
            signal('SIGTERM');
            const timer = setTimeout(() => signal('SIGKILL'), 15_000);
            await exit;
            clearTimeout(timer);
            return peak;
          },
        };
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${script} did not become healthy:\n${output}`);
}

/**
 * `node dist/src/main.js work` with warn-level logs, as an operator would run it under load.
 * With `cpuProfileDir`, V8 writes a .cpuprofile there when the server exits.
 */
export async function startWork(
  databaseUrl: string,
  poolSize: number,
  cpuProfileDir?: string,
  extraEnv: Record<string, string> = {},
  /** Another build's dist/src/main.js, to measure before and after a change with the same harness. */
  main: string = SERVICES_MAIN,
  /** Every fsync and fdatasync of the server made this much slower (strace's fault injection): a cloud disk. */
  slowFsyncMs = 0,
): Promise<BenchServer> {
  const port = await freePort();
  const env = {
    WORK_PORT: String(port),
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: String(poolSize),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const slowDisk =
    slowFsyncMs > 0
      ? [
          'strace',
          '-f',
          '-qq',
          '--seccomp-bpf',
          '-o',
          '/dev/null',
          '-e',
          'trace=fsync,fdatasync',
          '-e',
          `inject=fsync,fdatasync:delay_exit=${Math.round(slowFsyncMs * 1000)}`,
        ]
      : [];
  return startNode(
    main,
    ['work'],
    env,
    port,
    cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : [],
    'healthy',
    slowDisk,
  );
}

/**
 * `node dist/src/main.js classify` with warn-level logs; `llmEnv` picks the provider
 * (LLM_PROVIDER, LLM_BASE_URL, LLM_API_KEY). With `cpuProfileDir`, as for `startWork`.
 */
export async function startClassify(
  databaseUrl: string,
  llmEnv: Record<string, string>,
  cpuProfileDir?: string,
): Promise<BenchServer> {
  const port = await freePort();
  const env = { CLASSIFY_PORT: String(port), DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...llmEnv };
  return startNode(
    SERVICES_MAIN,
    ['classify'],
    env,
    port,
    cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : [],
  );
}

/** The tests' fake provider; its OpenAI base URL is `url` + /v1. */
export async function startFakeProvider(): Promise<BenchServer> {
  const port = await freePort();
  return startNode(FAKE_PROVIDER_MAIN, [], { FAKE_LLM_PORT: String(port) }, port, [], 'answering');
}

export interface BenchDesk {
  /** The process `npm start` starts; `url` is the work service. */
  server: BenchServer;
  classifyUrl: string;
}

/**
 * `node <main> all` as `npm start` runs it, both services; `main` may be an older build (to
 * measure before and after a change). `env` adds to the ports, database and warn-level logs.
 */
export async function startDesk(main: string, databaseUrl: string, env: Record<string, string>): Promise<BenchDesk> {
  const [workPort, classifyPort] = [await freePort(), await freePort()];
  const server = await startNode(
    main,
    ['all'],
    {
      WORK_PORT: String(workPort),
      CLASSIFY_PORT: String(classifyPort),
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      ...env,
    },
    workPort,
  );
  return { server, classifyUrl: `http://127.0.0.1:${classifyPort}` };
}
