import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Launch } from './processes.js';

// The CLI as a user runs it: `node dist/src/cli/main.js …` (the package's `bin`) in its own
// process, with a clean environment (PATH and what the test gives), stdin from the test and
// stdout a pipe, so it is not a terminal. `npm run build:server` first.

export const CLI_JS = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runCli(
  args: string[],
  env: Record<string, string>,
  options: { stdin?: string | Buffer; timeoutMs?: number } = {},
): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI_JS, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.stdin ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  try {
    const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
    return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the CLI and parses its stdout as JSON; fails with everything it printed when it cannot. */
export async function runCliJson<T = any>(
  args: string[],
  env: Record<string, string>,
  options?: { stdin?: string },
): Promise<{ run: CliRun; body: T }> {
  const run = await runCli([...args, '--json'], env, options);
  let body: T;
  try {
    body = JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(
      `agentdesk ${args.join(' ')} --json printed no JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`,
    );
  }
  return { run, body };
}

/** For startWorkServer's `wrap`: the service started by `agentdesk serve <service>` instead of main.js. */
export function throughCliServe(launch: Launch): Launch {
  const [, service = 'work', ...rest] = launch.args;
  return { command: launch.command, args: [CLI_JS, 'serve', service, ...rest] };
}
