import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresBaseUrl, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { type Answer, fetchJson, pooled } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { type ItemView, historyViolations, itemViolations } from './lifecycle-check.js';

// Several instances behind a load balancer on one PostgreSQL. Two real instances on one
// schema, started together, moved through the lifecycle by concurrent clients on both.

const hasPostgres = (await storesUnderTest()).includes('postgres');
const title = hasPostgres
  ? 'two work-service instances on one PostgreSQL schema'
  : 'two work-service instances on one PostgreSQL schema — SKIPPED: PostgreSQL does not answer';

const AGENTS = ['ada', 'grace', 'linus'] as const;

/** A seeded generator, so a failing run can be replayed with the seed it prints. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe.skipIf(!hasPostgres)(title, () => {
  let database: TestDatabase;
  let instances: [ServerProcess, ServerProcess];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // info: each instance logs the migrations it applied.
    const env = { DATABASE_URL: database.config.url, DATABASE_POOL_SIZE: '5', LOG_LEVEL: 'info' };
    // Spawned in the same tick: both reach the migrations together.
    const [a, b] = await Promise.all([startWorkServer({ env }), startWorkServer({ env })]);
    instances = [a, b];
  });

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  const instance = (n: number) => instances[n % 2] as ServerProcess;

  async function createItem(n: number, agent?: string): Promise<ItemView> {
    const created = await fetchJson(instance(n).url, 'POST', '/work', {
      type: 'two_instances',
      description: `item ${n}`,
      ...(agent && { agent }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as ItemView;
  }

  async function patch(n: number, id: string, body: Record<string, unknown>): Promise<Answer<ItemView>> {
    return fetchJson<ItemView>(instance(n).url, 'PATCH', `/work/${id}`, body);
  }

  it('both start at once and the migrations ran exactly once', async () => {
    const files = readdirSync(fileURLToPath(new URL('../../migrations/postgres', import.meta.url))).filter((file) =>
      file.endsWith('.sql'),
    );
    const client = new pg.Client({ connectionString: postgresBaseUrl() });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT version FROM ${database.schema}.schema_migrations ORDER BY version`);
      expect(rows.map((row) => `${row.version}.sql`)).toEqual(files.sort());
    } finally {
      await client.end();
    }
    // The advisory lock let one instance apply each migration; the other found it done.
    const logs = instances.map((server) => server.stdout()).join('\n');
    for (const file of files) {
      const applied = logs.split('\n').filter((line) => line.includes(`"migration":"${file.replace(/\.sql$/, '')}"`));
      expect(applied, file).toHaveLength(1);
    }
    for (const server of instances) {
      expect((await fetchJson(server.url, 'GET', '/health')).body).toEqual({ status: 'ok' });
    }
  });

  const conflicts = [
    {
      name: 'complete vs fail',
      from: 'in_progress',
      a: { status: 'completed', outcome: 'success' },
      b: { status: 'failed', outcome: 'failed' },
    },
    {
      name: 'pick up vs cancel',
      from: 'dispatched',
      a: { status: 'in_progress' },
      b: { status: 'cancelled', outcome: 'cancelled' },
    },
    { name: 'release vs pick up', from: 'dispatched', a: { status: 'queued' }, b: { status: 'in_progress' } },
    {
      name: 'reassign vs complete',
      from: 'in_progress',
      a: { agent: 'grace' },
      b: { status: 'completed', outcome: 'success' },
    },
  ] as const;

  it.each(conflicts)('$name on two instances at once: exactly one 200 and one 409', async ({ from, a, b }) => {
    const items = await pooled(16, 8, async (n) => {
      const item = await createItem(n, 'ada');
      if (from === 'in_progress') expect((await patch(n + 1, item.id, { status: 'in_progress' })).status).toBe(200);
      return item;
    });
    // Each pair is sent together, one move to each instance (alternating which gets which).
    const pairs = await Promise.all(
      items.map((item, n) => Promise.all([patch(n, item.id, a), patch(n + 1, item.id, b)])),
    );
    for (const [n, [first, second]] of pairs.entries()) {
      const item = items[n] as ItemView;
      expect([first.status, second.status].sort(), JSON.stringify([first.body, second.body])).toEqual([200, 409]);
      const winner = (first.status === 200 ? first : second).body;
      const loser = (first.status === 409 ? first : second).body as unknown as { current_status: string };
      expect(loser.current_status).toBe(winner.status);
      for (const server of instances) {
        const stored = await fetchJson<ItemView>(server.url, 'GET', `/work/${item.id}`);
        expect(stored.body).toMatchObject(winner); // GET adds the plan (depends_on, blocked_by, children)
      }
      expect(itemViolations(winner)).toEqual([]);
    }
  });

  it('concurrent clients on both instances leave every item on a valid path, no acknowledged write lost', async () => {
    const seed = Date.now();
    const items = await pooled(12, 6, (n) => createItem(n, AGENTS[n % AGENTS.length]));
    const acknowledged = new Map<string, ItemView[]>(items.map((item) => [item.id, [item]]));
    const unexpected: unknown[] = [];
    let conflicts = 0;

    const moves = [
      (r: () => number) => ({ status: 'dispatched', agent: AGENTS[Math.floor(r() * AGENTS.length)] }),
      (r: () => number) => ({ agent: AGENTS[Math.floor(r() * AGENTS.length)] }),
      () => ({ status: 'in_progress' }),
      () => ({ status: 'in_progress' }),
      () => ({ status: 'blocked' }),
      () => ({ status: 'queued' }),
      (r: () => number) => ({ notes: `note ${Math.floor(r() * 1e6)}` }),
      () => ({ status: 'completed', outcome: 'success' }),
      () => ({ outcome: 'failed' }),
      () => ({ status: 'cancelled', outcome: 'cancelled' }),
    ];
    // Final moves are rarer, so items live long enough to collide many times.
    const weights = [10, 8, 10, 6, 6, 6, 4, 1, 1, 1];
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    const pick = (r: () => number) => {
      let roll = r() * total;
      for (const [index, weight] of weights.entries()) {
        roll -= weight;
        if (roll < 0) return moves[index] as (r: () => number) => Record<string, unknown>;
      }
      return moves[0] as (r: () => number) => Record<string, unknown>;
    };

    await Promise.all(
      Array.from({ length: 16 }, async (_, client) => {
        const r = random(seed + client);
        for (let step = 0; step < 40; step += 1) {
          const item = items[Math.floor(r() * items.length)] as ItemView;
          const body = pick(r)(r);
          const answer = await patch(Math.floor(r() * 2), item.id, body);
          if (answer.status === 200) acknowledged.get(item.id)?.push(answer.body);
          else if (answer.status === 409) conflicts += 1;
          else
            unexpected.push({ item: item.id, body, status: answer.status, answer: answer.body, error: answer.error });
        }
      }),
    );

    expect(unexpected, `seed ${seed}`).toEqual([]);
    expect(conflicts, 'the clients did collide').toBeGreaterThan(0);
    const problems: string[] = [];
    for (const item of items) {
      const [fromA, fromB] = await Promise.all(
        instances.map((server) => fetchJson<ItemView>(server.url, 'GET', `/work/${item.id}`)),
      );
      expect(fromA?.status).toBe(200);
      expect(fromB?.body).toEqual(fromA?.body);
      problems.push(...historyViolations(fromA?.body as ItemView, acknowledged.get(item.id) ?? []));
    }
    expect(problems, `seed ${seed}`).toEqual([]);

    // Every item created on either instance is listed by both.
    for (const server of instances) {
      const listed = await fetchJson<ItemView[]>(server.url, 'GET', '/work?type=two_instances&limit=1000');
      const ids = new Set(listed.body.map((item) => item.id));
      expect(items.filter((item) => !ids.has(item.id))).toEqual([]);
    }
  });
});
