import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { throughCliServe } from '../support/cli.js';
import { type DeskProcess, killAllServers, sleep, startDesk } from '../support/processes.js';

// `npm start` (`main.js all`) runs each service in a process of its own and is still
// one command: it starts both, stops both on SIGTERM or SIGINT, and ends non-zero when one of
// them dies, taking the other down with it. Built files: run `npm run build:server` first.

const stores = await storesUnderTest();

/** The children's pids, from the parent's "service process started" lines. */
function childPids(desk: DeskProcess): Record<'work' | 'classify', number> {
  const pids: Record<string, number> = {};
  for (const line of desk.stdout().split('\n')) {
    if (!line.includes('"service process started"')) continue;
    const parsed = JSON.parse(line) as { service: string; child_pid: number };
    pids[parsed.service] = parsed.child_pid;
  }
  expect(Object.keys(pids).sort()).toEqual(['classify', 'work']);
  return pids as Record<'work' | 'classify', number>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

describe.each(stores)('npm start (main.js all) on %s', (kind) => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    await killAllServers();
    for (const database of databases) await database.destroy();
  });

  async function start(options: { viaCli?: boolean } = {}): Promise<DeskProcess> {
    const database = await createTestDatabase(kind);
    databases.push(database);
    const env = { DATABASE_URL: database.config.url, LLM_PROVIDER: 'rules' };
    return startDesk({ env, startTimeoutMs: 60_000, ...(options.viaCli ? { wrap: throughCliServe } : {}) });
  }

  it('serves both services from two processes and stops both on SIGTERM, exiting 0', async () => {
    const desk = await start();
    const pids = childPids(desk);
    expect(pids.work).not.toBe(desk.pid);
    expect(pids.classify).not.toBe(pids.work);
    expect((await fetchJson(desk.url, 'POST', '/work', { type: 'npm-start', description: 'one command' })).status).toBe(
      201,
    );
    const classified = await fetchJson(desk.classifyUrl, 'POST', '/classify', {
      email_data: { subject: 'Please sign the contract', body: 'Could you sign it by Friday?' },
    });
    expect(classified.status).toBe(200);
    // The UI's relay reaches the classifier in the other process.
    expect(
      (
        await fetchJson(desk.url, 'POST', '/ui-api/classify', {
          email_data: { subject: 'Lunch?', body: 'Are you free?' },
        })
      ).status,
    ).toBe(200);

    const exit = await desk.stop(30_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await gone(pids.work)).toBe(true);
    expect(await gone(pids.classify)).toBe(true);
  });

  it('agentdesk serve starts the same two service processes (main.js, not the CLI) and stops them on SIGTERM', async () => {
    const desk = await start({ viaCli: true });
    const pids = childPids(desk);
    expect((await fetchJson(desk.url, 'POST', '/work', { type: 'serve', description: 'through the CLI' })).status).toBe(
      201,
    );
    const classified = await fetchJson(desk.classifyUrl, 'POST', '/classify', {
      email_data: { subject: 'Please sign the contract', body: 'Could you sign it by Friday?' },
    });
    expect(classified.status).toBe(200);
    expect(await desk.stop(30_000)).toEqual({ code: 0, signal: null });
    expect(await gone(pids.work)).toBe(true);
    expect(await gone(pids.classify)).toBe(true);
  });

  it('SIGINT stops both too', async () => {
    const desk = await start();
    const pids = childPids(desk);
    desk.signal('SIGINT');
    expect(await desk.exited).toEqual({ code: 0, signal: null });
    expect(await gone(pids.work)).toBe(true);
    expect(await gone(pids.classify)).toBe(true);
  });

  it('when one service dies, stops the other and exits non-zero', async () => {
    const desk = await start();
    const pids = childPids(desk);
    process.kill(pids.classify, 'SIGKILL');
    const exit = await desk.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(await gone(pids.work)).toBe(true);
    expect(desk.stdout()).toMatch(/"service":"classify".*"signal":"SIGKILL".*service process ended/);
  });

  it('SIGHUP (the terminal closed) stops both too', async () => {
    const desk = await start();
    const pids = childPids(desk);
    desk.signal('SIGHUP');
    expect(await desk.exited).toEqual({ code: 0, signal: null });
    expect(await gone(pids.work)).toBe(true);
    expect(await gone(pids.classify)).toBe(true);
  });

  // `npm start` runs `sh -c "… && node dist/src/main.js all"`; `kill <npm's pid>` ends npm and
  // its sh, and no signal reaches node, which is left reparented.
  it('when the shell that started it is killed, the supervisor and both services stop', async () => {
    const database = await createTestDatabase(kind);
    databases.push(database);
    const underShell = (launch: { command: string; args: string[] }) => ({
      command: 'sh',
      // The trailing command keeps sh from exec-ing node, as npm's `a && b` does.
      args: ['-c', '"$0" "$@"; exit $?', launch.command, ...launch.args],
    });
    const shell = await startDesk({
      env: { DATABASE_URL: database.config.url, LLM_PROVIDER: 'rules' },
      startTimeoutMs: 60_000,
      wrap: underShell,
    });
    const pids = childPids(shell);
    const supervisor = JSON.parse(
      shell
        .stdout()
        .split('\n')
        .find((line) => line.includes('"service process started"'))!,
    ) as { pid: number };
    expect(supervisor.pid).not.toBe(shell.pid);
    try {
      expect(await shell.kill()).toEqual({ code: null, signal: 'SIGKILL' });
      expect(await gone(supervisor.pid)).toBe(true);
      expect(await gone(pids.work)).toBe(true);
      expect(await gone(pids.classify)).toBe(true);
    } finally {
      for (const pid of [supervisor.pid, pids.work, pids.classify]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('when the parent is killed outright, the services stop by themselves', async () => {
    const desk = await start();
    const pids = childPids(desk);
    await desk.kill();
    expect(await gone(pids.work)).toBe(true);
    expect(await gone(pids.classify)).toBe(true);
  });
});
