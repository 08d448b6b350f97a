import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

// The processes a benchmark run starts: the real work service as `npm start` runs it, and the
// ceiling server. Each is its own node process; its peak RSS is read from /proc before it stops.

export const WORK_MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
export const CEILING_MAIN = fileURLToPath(new URL('./ceiling-server.js', import.meta.url));
export const LOAD_MAIN = fileURLToPath(new URL('./load.js', import.meta.url));

export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  /** VmHWM: the most resident memory the process has had, in MiB. */
  peakRssMb(): number;
  /** SIGTERM, then the peak RSS it reached. */
  stop(): Promise<number>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

function peakRssMb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function startNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  nodeOptions: string[] = [],
): Promise<BenchServer> {
  const child = spawn(process.execPath, [...nodeOptions, script, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
    children.delete(child);
  });
  const url = `http://127.0.0.1:${port}`;
  const pid = child.pid ?? -1;

  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (exited) throw new Error(`${script} exited during start-up:\n${output}`);
    try {
      const response = await fetch(`${url}/health`);
      await response.arrayBuffer();
      if (response.ok) {
        return {
          url,
          pid,
          peakRssMb: () => peakRssMb(pid),
          async stop() {
            const peak = peakRssMb(pid);
            child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
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
export async function startWork(databaseUrl: string, poolSize: number, cpuProfileDir?: string): Promise<BenchServer> {
  const port = await freePort();
  const env = { WORK_PORT: String(port), DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: String(poolSize), LOG_LEVEL: 'warn' };
  return startNode(WORK_MAIN, ['work'], env, port, cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : []);
}

export async function startCeiling(databaseUrl: string, poolSize: number): Promise<BenchServer> {
  const port = await freePort();
  return startNode(CEILING_MAIN, [], { CEILING_PORT: String(port), DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: String(poolSize) }, port);
}
