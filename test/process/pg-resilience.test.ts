import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresBaseUrl, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { type Answer, fetchJson } from '../support/fetch-json.js';
import { killAllServers, sleep, startWorkServer } from '../support/processes.js';
import { type TcpProxy, startTcpProxy } from '../support/tcp-proxy.js';

// A dropped connection costs at most the requests in flight, as 503 problem+json;
// /health tells whether the database can be reached; every statement carries a timeout.

const hasPostgres = (await storesUnderTest()).includes('postgres');

const PROBLEM = 'application/problem+json';

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresBaseUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Terminates every connection the service opened (they carry the schema as application_name). */
function terminatePool(schema: string): Promise<number[]> {
  return withAdmin(async (client) => {
    // Two statements: in one, the planner may call pg_terminate_backend before filtering.
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [schema],
    );
    const pids = rows.map((row) => row.pid);
    await client.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    return pids;
  });
}

async function waitUntilGone(pids: number[]): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const alive = await withAdmin(async (client) => {
      const { rows } = await client.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)', [pids]);
      return rows.length;
    });
    if (alive === 0) return;
    await sleep(20);
  }
  throw new Error(`backends ${pids.join(', ')} did not exit`);
}

function expectOnlySuccessOr503(answers: Answer[]): void {
  const unexpected = answers.filter(
    (answer) => !(answer.status >= 200 && answer.status < 300) && answer.status !== 503,
  );
  expect(unexpected.map((answer) => ({ status: answer.status, error: answer.error, body: answer.body }))).toEqual([]);
  for (const answer of answers.filter((candidate) => candidate.status === 503)) {
    expect(answer.contentType).toContain(PROBLEM);
    expect(answer.body).toMatchObject({ status: 503, type: expect.stringContaining('unavailable') });
  }
}

const title = hasPostgres ? 'PostgreSQL resilience' : 'PostgreSQL resilience — SKIPPED: PostgreSQL does not answer';

describe.skipIf(!hasPostgres)(title, () => {
  const databases: TestDatabase[] = [];
  const proxies: TcpProxy[] = [];

  afterAll(async () => {
    await killAllServers();
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await Promise.all(databases.map((database) => database.destroy()));
  });

  async function freshDatabase(): Promise<TestDatabase & { schema: string }> {
    const database = await createTestDatabase('postgres');
    databases.push(database);
    if (!database.schema) throw new Error('a PostgreSQL test database has a schema');
    return database as TestDatabase & { schema: string };
  }

  it('pg_terminate_backend on the whole pool: 503s at most, then it serves again without a restart', async () => {
    const database = await freshDatabase();
    const server = await startWorkServer({
      env: { DATABASE_URL: database.config.url, DATABASE_POOL_SIZE: '5', LOG_LEVEL: 'warn' },
    });

    const answers: Answer[] = [];
    let running = true;
    const client = async (n: number) => {
      for (let round = 0; running && round < 2_000; round += 1) {
        const created = await fetchJson(server.url, 'POST', '/work', {
          type: 'resilience',
          description: `c${n} r${round}`,
          agent: 'ada',
        });
        answers.push(created);
        answers.push(await fetchJson(server.url, 'GET', '/work?status=dispatched&limit=20'));
        if (created.status === 201) {
          answers.push(await fetchJson(server.url, 'PATCH', `/work/${created.body.id}`, { status: 'in_progress' }));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, (_, n) => client(n)));
    const terminated: number[] = [];
    // Each wave waits for load to be flowing, not for a fixed time: the machine may be busy.
    const flowing = async (count: number) => {
      for (const until = Date.now() + 30_000; answers.length < count && Date.now() < until;) await sleep(50);
    };
    for (let wave = 0; wave < 3; wave += 1) {
      await flowing((wave + 1) * 20);
      terminated.push(...(await terminatePool(database.schema)));
    }
    await flowing(80);
    running = false;
    await load;

    expect(terminated.length).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(50);
    expectOnlySuccessOr503(answers);
    expect(server.running()).toBe(true);

    // Idle connections killed: once their backends are gone, the very next requests succeed.
    const idle = await terminatePool(database.schema);
    expect(idle.length).toBeGreaterThan(0);
    await waitUntilGone(idle);
    await sleep(100);
    for (let n = 0; n < 20; n += 1) {
      const created = await fetchJson(server.url, 'POST', '/work', { type: 'resilience', description: `after ${n}` });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect((await fetchJson(server.url, 'GET', `/work/${created.body.id}`)).status).toBe(200);
    }
  });

  it('/health is 503 unavailable while the database cannot be reached and ok once it can', async () => {
    const database = await freshDatabase();
    const target = new URL(postgresBaseUrl());
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    proxies.push(proxy);
    const viaProxy = new URL(database.config.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const server = await startWorkServer({
      env: { DATABASE_URL: viaProxy.toString(), DATABASE_STATEMENT_TIMEOUT_MS: '1000', LOG_LEVEL: 'warn' },
    });
    expect(
      (await fetchJson(server.url, 'POST', '/work', { type: 'health', description: 'before the cut' })).status,
    ).toBe(201);

    proxy.cut();
    for (let n = 0; n < 3; n += 1) {
      const started = Date.now();
      const health = await fetchJson(server.url, 'GET', '/health');
      expect(health.status, server.stderr() + server.stdout()).toBe(503);
      expect(health.body).toEqual({ status: 'unavailable' });
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    const refused = await fetchJson(server.url, 'POST', '/work', { type: 'health', description: 'during the cut' });
    expect(refused.status).toBe(503);
    expect(refused.contentType).toContain(PROBLEM);

    proxy.restore();
    let health: Answer = { status: 0, contentType: '', body: undefined };
    for (let attempt = 0; attempt < 50 && health.status !== 200; attempt += 1) {
      health = await fetchJson(server.url, 'GET', '/health');
      if (health.status !== 200) await sleep(100);
    }
    expect(health.body).toEqual({ status: 'ok' });
    expect(
      (await fetchJson(server.url, 'POST', '/work', { type: 'health', description: 'after the cut' })).status,
    ).toBe(201);
  });

  it('a statement waiting on a lock is cut off by DATABASE_STATEMENT_TIMEOUT_MS with a 503', async () => {
    const database = await freshDatabase();
    const server = await startWorkServer({
      env: { DATABASE_URL: database.config.url, DATABASE_STATEMENT_TIMEOUT_MS: '500', LOG_LEVEL: 'warn' },
    });
    const item = await fetchJson(server.url, 'POST', '/work', {
      type: 'timeout',
      description: 'locked by the test',
      agent: 'ada',
    });
    expect(item.status).toBe(201);

    const locker = new pg.Client({ connectionString: postgresBaseUrl() });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT id FROM ${database.schema}.work_items WHERE id = $1 FOR UPDATE`, [item.body.id]);

      const started = Date.now();
      const blocked = await fetchJson(server.url, 'PATCH', `/work/${item.body.id}`, { status: 'in_progress' });
      const waited = Date.now() - started;
      expect(blocked.status, JSON.stringify(blocked.body)).toBe(503);
      expect(blocked.contentType).toContain(PROBLEM);
      expect(waited).toBeGreaterThanOrEqual(400);
      expect(waited).toBeLessThan(3_000);
      // Readers are not held up by a row lock.
      expect((await fetchJson(server.url, 'GET', `/work/${item.body.id}`)).body.status).toBe('dispatched');
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const moved = await fetchJson(server.url, 'PATCH', `/work/${item.body.id}`, { status: 'in_progress' });
    expect(moved.status).toBe(200);
    expect(moved.body.status).toBe('in_progress');
  });
});
