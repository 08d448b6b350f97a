import { type ChildProcess, spawn } from 'node:child_process';
import type { Logger } from 'pino';
import { type BannerFacts, READY_MESSAGE, type ReadyService, bannerText } from './banner.js';
import { STOP_SIGNALS, whenParentGone } from './parent-watch.js';

// `main all` runs each service in a process of its own, so classification's big emails and provider calls
// cannot hold up the work API's event loop (docs/design-decisions.md, "Classification").

export interface ChildService {
  name: string;
  /** Arguments to the script, e.g. ['work']. */
  args: string[];
}

interface Running {
  name: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Time a child has to finish its requests after SIGTERM before it is killed. */
const STOP_GRACE_MS = 30_000;

/**
 * Runs `node <script> <args>` for each service, with `env`, passes SIGTERM and SIGINT on, and stays up
 * exactly as long as all do: when one dies by itself the others are stopped and the parent exits non-zero,
 * so a supervisor above (systemd, Docker, npm) sees it. SIGHUP and its own parent's death stop them too.
 */
export function superviseServices(
  script: string,
  services: ChildService[],
  env: NodeJS.ProcessEnv,
  logger: Logger,
  /** Given when a person reads the output (LOG_FORMAT): one banner once every service listens. */
  banner?: BannerFacts,
): void {
  const ready: ReadyService[] = [];
  const running: Running[] = services.map(({ name, args }) => {
    const child = spawn(process.execPath, [...process.execArgv, script, ...args], {
      env,
      // An IPC channel the child never uses: when the parent dies (even by SIGKILL) the child sees it close
      // and stops, so no service outlives `npm start`. A group of its own: a Ctrl-C reaches the parent only,
      // which stops them in order, rather than racing them to a stop it would take for a death.
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      // Spawning itself failed (no such executable): reported as an exit, handled the same way.
      child.once('error', (error) => {
        logger.error({ service: name, err: { message: error.message } }, 'service could not be started');
        resolve({ code: 1, signal: null });
      });
    });
    child.on('message', (message: { type?: string; name?: string; url?: string }) => {
      if (message?.type !== READY_MESSAGE || typeof message.name !== 'string' || typeof message.url !== 'string')
        return;
      ready.push({ name: message.name, url: message.url });
      if (banner && ready.length === services.length) {
        const order = services.map((service) => service.name);
        process.stdout.write(
          bannerText(
            [...ready].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name)),
            banner,
          ),
        );
      }
    });
    logger.info({ service: name, child_pid: child.pid }, 'service process started');
    return { name, child, exited };
  });

  let stopping = false;
  const stopAll = async (reason: NodeJS.Signals): Promise<number> => {
    stopping = true;
    const results = await Promise.all(
      running.map(async ({ child, exited }) => {
        if (child.exitCode === null && child.signalCode === null) child.kill(reason);
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        const exit = await exited;
        clearTimeout(timer);
        return exit;
      }),
    );
    return results.every((exit) => exit.code === 0) ? 0 : 1;
  };

  const stopOn = (signal: NodeJS.Signals | 'parent gone') => {
    if (stopping) return;
    logger.info({ signal }, 'stopping the services');
    void stopAll('SIGTERM').then((code) => process.exit(code));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => stopOn(signal));
  whenParentGone(() => stopOn('parent gone'));

  for (const { name, exited } of running) {
    void exited.then(async ({ code, signal }) => {
      if (stopping) return;
      logger.error({ service: name, code, signal }, 'service process ended; stopping the others');
      await stopAll('SIGTERM');
      process.exit(code === null || code === 0 ? 1 : code);
    });
  }
}
