import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

// Real servers as `npm start` runs them: `node dist/src/main.js work` in its own process, so a
// test can SIGKILL or SIGTERM it. `npm test` builds dist/ first; run `npm run build:server`
// before `npx vitest run test/process` on its own.

export const MAIN_JS = fileURLToPath(new URL('../../dist/src/main.js', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited, however it ended. */
  readonly exited: Promise<Exit>;
  running(): boolean;
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<Exit>;
  /** SIGTERM, wait up to `graceMs` for the exit, then SIGKILL. */
  stop(graceMs?: number): Promise<Exit>;
}

export interface StartOptions {
  /** Added to a clean environment (PATH only), so the developer's own variables never leak in. */
  env: Record<string, string>;
  /** A fixed port; otherwise a free one. */
  port?: number;
  startTimeoutMs?: number;
  /** Which service `main.js` runs; the work service unless told. */
  service?: ServiceName;
  /** Runs the service under another command (e.g. strace); it must still exit when the service does. */
  wrap?: (launch: Launch) => Launch;
}

const live = new Set<ChildProcess>();

// The last line of defence: a worker that dies with servers still up must not leave them behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extra };
}

export type ServiceName = 'work' | 'classify';

/** The command that runs the service: node itself, or a wrapper such as strace in front of it. */
export interface Launch {
  command: string;
  args: string[];
}

function spawnMain(
  env: Record<string, string>,
  selection: ServiceName | 'all' = 'work',
  wrap: (launch: Launch) => Launch = (launch) => launch,
): { child: ChildProcess; out: string[]; err: string[]; exited: Promise<Exit>; drained: Promise<unknown> } {
  const launch = wrap({ command: process.execPath, args: [MAIN_JS, selection] });
  const child = spawn(launch.command, launch.args, { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  const out: string[] = [];
  const err: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  // 'exit' may come before the last of the pipes' data: a busy host delivered a failed start's
  // stderr after it, and the test read nothing.
  const drained = Promise.all([child.stdout, child.stderr].map((stream) => stream && once(stream, 'close'))).catch(
    () => undefined,
  );
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  return { child, out, err, exited, drained };
}

/** Starts the work service (or `options.service`) and resolves once `GET /health` answers 200. */
export function startWorkServer(options: StartOptions): Promise<ServerProcess> {
  return startMain(options, options.service ?? 'work');
}

export interface DeskProcess extends ServerProcess {
  /** The classification service, http://127.0.0.1:<port>; `url` is the work service. */
  readonly classifyUrl: string;
}

/** `main.js all` as `npm start` runs it; resolves once both services answer `GET /health`. */
export async function startDesk(options: StartOptions): Promise<DeskProcess> {
  const classifyPort = await freePort();
  const classifyUrl = `http://127.0.0.1:${classifyPort}`;
  const server = await startMain(
    { ...options, env: { ...options.env, CLASSIFY_PORT: String(classifyPort) } },
    'all',
    classifyUrl,
  );
  return Object.assign(server, { classifyUrl });
}

/** `url` and `port` are the work service's, or the classify service's when it runs alone. */
async function startMain(
  options: StartOptions,
  selection: ServiceName | 'all',
  alsoHealthy?: string,
): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const portVariable = selection === 'classify' ? 'CLASSIFY_PORT' : 'WORK_PORT';
  const { child, out, err, exited } = spawnMain(
    { ...options.env, [portVariable]: String(port) },
    selection,
    options.wrap,
  );
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const url = `http://127.0.0.1:${port}`;

  const server: ServerProcess = {
    url,
    port,
    pid: child.pid ?? -1,
    stdout: () => out.join(''),
    stderr: () => err.join(''),
    exited,
    running: () => !hasExited,
    signal: (signal) => void child.kill(signal),
    async kill() {
      if (!hasExited) child.kill('SIGKILL');
      return exited;
    },
    async stop(graceMs = 10_000) {
      if (hasExited) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  while (Date.now() < deadline) {
    if (hasExited) {
      const exit = await exited;
      throw new Error(
        `${selection} exited during start-up (${JSON.stringify(exit)}):\n${server.stderr()}${server.stdout()}`,
      );
    }
    try {
      const healthy = await Promise.all(
        [url, alsoHealthy]
          .filter((base) => base !== undefined)
          .map(async (base) => {
            const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) });
            await response.arrayBuffer();
            return response.status === 200;
          }),
      );
      if (healthy.every(Boolean)) return server;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  await server.kill();
  throw new Error(`${selection} did not become healthy on ${url}:\n${server.stderr()}${server.stdout()}`);
}

export interface Finished {
  exit: Exit;
  stdout: string;
  stderr: string;
}

/** Runs the work service expecting it to stop by itself (a start-up failure); kills it after `timeoutMs`. */
export async function runUntilExit(env: Record<string, string>, timeoutMs = 10_000): Promise<Finished> {
  const { child, out, err, exited, drained } = spawnMain(env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const exit = await exited;
    await Promise.race([drained, sleep(2_000)]);
    return { exit, stdout: out.join(''), stderr: err.join('') };
  } finally {
    clearTimeout(timer);
  }
}

/** For afterAll: every server this worker started and did not stop is killed. */
export async function killAllServers(): Promise<void> {
  const exits = [...live].map((child) => {
    const done = once(child, 'exit');
    child.kill('SIGKILL');
    return done;
  });
  await Promise.all(exits);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
