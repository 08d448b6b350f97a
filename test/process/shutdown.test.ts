import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { freePort, killAllServers, runUntilExit, sleep, startWorkServer } from '../support/processes.js';

const stores = await storesUnderTest();

interface Reply {
  status: number;
  body: any;
}

/**
 * A request the server has begun but cannot finish until `finish()` sends the rest of its body,
 * so a shutdown must wait for it, however long the client takes. `Expect: 100-continue` makes
 * the server say when it has taken the request in: no guessing with sleeps.
 */
async function beginRequest(url: string, method: 'POST' | 'PATCH', path: string, body: unknown) {
  const bytes = Buffer.from(JSON.stringify(body));
  const half = Math.floor(bytes.length / 2);
  const req = request(`${url}${path}`, {
    method,
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), expect: '100-continue' },
  });
  const accepted = once(req, 'continue');
  req.flushHeaders();
  const reply = new Promise<Reply>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
      );
      res.once('error', reject);
    });
  });
  await accepted;
  await new Promise<void>((resolve, reject) =>
    req.write(bytes.subarray(0, half), (error) => (error ? reject(error) : resolve())),
  );
  return {
    finish(): Promise<Reply> {
      req.end(bytes.subarray(half));
      return reply;
    },
  };
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe.each(stores)('SIGTERM on %s', (kind) => {
  let database: TestDatabase | undefined;

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('finishes the requests in flight, refuses new connections and exits 0', async () => {
    database = await createTestDatabase(kind);
    const env = { DATABASE_URL: database.config.url };
    const server = await startWorkServer({ env });
    const existing = await fetchJson(server.url, 'POST', '/work', {
      type: 'shutdown',
      description: 'picked up late',
      agent: 'ada',
    });
    expect(existing.status).toBe(201);

    const inFlight = [
      ...[1, 2, 3].map((n) =>
        beginRequest(server.url, 'POST', '/work', { type: 'shutdown', description: `submitted during shutdown ${n}` }),
      ),
      beginRequest(server.url, 'PATCH', `/work/${existing.body.id}`, { status: 'in_progress', notes: 'late' }),
    ];
    const pending = await Promise.all(inFlight);

    server.signal('SIGTERM');
    let refused = false;
    for (let attempt = 0; attempt < 40 && !refused; attempt += 1) {
      refused = await connectionRefused(server.port);
      if (!refused) await sleep(50);
    }
    expect(refused, 'the listening socket is closed after SIGTERM').toBe(true);
    // The begun requests hold the process open until they are answered.
    await sleep(300);
    expect(server.running()).toBe(true);

    const replies = await Promise.all(pending.map((request) => request.finish()));
    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 200]);
    expect(replies[3]?.body).toMatchObject({ status: 'in_progress', notes: 'late' });
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stdout()).toContain('"msg":"stopped"');

    // What was answered before the exit is on disk.
    const restarted = await startWorkServer({ env });
    for (const reply of replies) {
      const stored = await fetchJson(restarted.url, 'GET', `/work/${reply.body.id}`);
      expect(stored.status).toBe(200);
      expect(stored.body.status).toBe(reply.body.status);
    }
    expect(await restarted.stop()).toEqual({ code: 0, signal: null });
  });
});

// Each case is its own short-lived process; they run side by side.
describe.concurrent('start-up with a bad environment', () => {
  afterAll(killAllServers);

  const sqliteUrl = 'sqlite::memory:';
  const cases = [
    { variable: 'WORK_PORT', value: 'abc' },
    { variable: 'WORK_PORT', value: '70000' },
    { variable: 'DATABASE_URL', value: 'mysql://root:hunter2@127.0.0.1/agentdesk' },
    { variable: 'LOG_LEVEL', value: 'loud' },
    { variable: 'DATABASE_POOL_SIZE', value: '0' },
    { variable: 'DATABASE_STATEMENT_TIMEOUT_MS', value: 'soon' },
    { variable: 'LLM_CONCURRENCY', value: '0' },
    { variable: 'LLM_QUEUE', value: 'many' },
    { variable: 'LLM_TOTAL_CONCURRENCY', value: '-5' },
  ] as const;

  it.for(cases)('$variable=$value stops start-up naming the variable', async ({ variable, value }, { expect }) => {
    const env = { WORK_PORT: String(await freePort()), DATABASE_URL: sqliteUrl, [variable]: value };
    const { exit, stdout, stderr } = await runUntilExit(env);
    expect(exit.code).not.toBe(0);
    expect(exit.signal).toBeNull();
    expect(stderr).toContain(variable);
    expect(stderr).not.toContain('hunter2');
    expect(stdout).not.toContain('listening');
  });

  it('a PostgreSQL that does not answer stops start-up without echoing the password', async ({ expect }) => {
    const port = await freePort();
    const { exit, stdout, stderr } = await runUntilExit({
      WORK_PORT: String(await freePort()),
      DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${port}/agentdesk`,
    });
    expect(exit.code).not.toBe(0);
    expect(exit.signal).toBeNull();
    expect(stderr).not.toBe('');
    expect(stderr + stdout).not.toContain('hunter2');
    expect(stdout).not.toContain('listening');
  });
});
