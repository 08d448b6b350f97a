import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { fetchJson } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// Dependencies across real processes: a plan of 20 steps claimed by 8 agents spread
// over two instances on one PostgreSQL (a completion on one instance wakes a claim waiting on
// the other), and kill -9 in the middle of a burst of completions: after the restart no item
// is claimable while a dependency is unfinished, and none whose dependencies all completed is
// left waiting.

const stores = await storesUnderTest();

/** A diamond at the top (0 → 1, 2 → 3), then a ladder where each step waits on those before. */
function planShape(): number[][] {
  const deps: number[][] = [[], [0], [0], [1, 2]];
  for (let i = 4; i < 20; i += 1) deps.push(i % 3 === 0 ? [i - 1, i - 2, i - 3] : [i - 1, i - 2]);
  return deps;
}

async function submit(url: string, body: Record<string, unknown>): Promise<string> {
  const answer = await fetchJson(url, 'POST', '/work', { description: 'a step', ...body });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id as string;
}

describe.skipIf(!stores.includes('postgres'))('a plan claimed on two instances of one PostgreSQL', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('20 steps, 8 agents on two instances: no step before its dependencies, each exactly once', async () => {
    database = await createTestDatabase('postgres');
    const env = { DATABASE_URL: database.config.url, DATABASE_POOL_SIZE: '5', LOG_LEVEL: 'warn' };
    const instances: ServerProcess[] = await Promise.all([
      startWorkServer({ env, startTimeoutMs: 60_000 }),
      startWorkServer({ env, startTimeoutMs: 60_000 }),
    ]);
    const type = 'plan_two';
    const deps = planShape();
    const ids: string[] = [];
    for (const [index, wanted] of deps.entries()) {
      ids.push(await submit(instances[index % 2]!.url, { type, depends_on: wanted.map((d) => ids[d]!) }));
    }
    const completing = new Set<string>();
    const claimedBy = new Map<string, string>();
    const agent = async (n: number) => {
      // Agents claim on one instance and complete on the other: every release crosses instances.
      const [claimOn, completeOn] = [instances[n % 2]!, instances[(n + 1) % 2]!];
      const name = `agent-${n}`;
      while (completing.size < ids.length) {
        const answer = await fetchJson(claimOn.url, 'POST', '/work/claim', { agent: name, types: [type], wait_s: 2 });
        if (answer.status === 204) continue;
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const id = answer.body.id as string;
        expect(claimedBy.get(id), `${id} claimed twice`).toBeUndefined();
        claimedBy.set(id, name);
        for (const dep of deps[ids.indexOf(id)]!)
          expect(completing.has(ids[dep]!), `step ${ids.indexOf(id)} before step ${dep}`).toBe(true);
        completing.add(id);
        const done = await fetchJson(completeOn.url, 'PATCH', `/work/${id}`, {
          status: 'completed',
          outcome: 'success',
          agent: name,
        });
        expect(done.status, JSON.stringify(done.body)).toBe(200);
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, n) => agent(n)));
    expect(claimedBy.size).toBe(20);
    const items = await Promise.all(
      ids.map(async (id) => (await fetchJson(instances[0]!.url, 'GET', `/work/${id}`)).body),
    );
    items.forEach((item, index) => {
      expect(item.status).toBe('completed');
      for (const dep of deps[index]!) expect(item.dispatch_log[0].dispatched_at >= items[dep].completed_at).toBe(true);
    });
  }, 180_000);
});

describe.each(stores)('kill -9 during a burst of completions on %s', (kind) => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  const ROOTS = 80;
  const KILL_AFTER = 25;

  it('after the restart, nothing is claimable with an unfinished dependency, and nothing ready is stuck', async () => {
    database = await createTestDatabase(kind);
    const env = { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn' };
    const first = await startWorkServer({ env, startTimeoutMs: 60_000 });
    const roots: string[] = [];
    for (let i = 0; i < ROOTS; i += 1) roots.push(await submit(first.url, { type: 'root' }));
    // Each dependent waits on two roots, so a completion releases some halfway and others fully.
    const dependents = new Map<string, string[]>();
    for (let i = 0; i < ROOTS; i += 1) {
      const on = [roots[i]!, roots[(i + 1) % ROOTS]!];
      dependents.set(await submit(first.url, { type: 'dependent', depends_on: on }), on);
    }
    for (let i = 0; i < ROOTS; i += 1) {
      const claimed = await fetchJson(first.url, 'POST', '/work/claim', { agent: 'runner', types: ['root'] });
      expect(claimed.status).toBe(200);
    }

    let acknowledged = 0;
    let next = 0;
    let killed: Promise<unknown> | undefined;
    const client = async () => {
      while (next < ROOTS) {
        const id = roots[next++]!;
        const answer = await fetchJson(first.url, 'PATCH', `/work/${id}`, {
          status: 'completed',
          outcome: 'success',
          agent: 'runner',
        });
        if (answer.status === 0) return;
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        acknowledged += 1;
        if (acknowledged === KILL_AFTER) killed = first.kill();
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    await killed;
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(acknowledged).toBeLessThan(ROOTS);

    const second = await startWorkServer({ env, startTimeoutMs: 60_000 });
    const status = new Map<string, string>();
    for (const id of roots) status.set(id, (await fetchJson(second.url, 'GET', `/work/${id}`)).body.status);
    expect([...status.values()].filter((s) => s === 'completed').length).toBeGreaterThanOrEqual(KILL_AFTER);
    const shouldBeReady = new Set<string>();
    for (const [id, on] of dependents) {
      const item = (await fetchJson(second.url, 'GET', `/work/${id}`)).body;
      const unfinished = on.filter((dep) => status.get(dep) !== 'completed');
      expect(item.waiting_on, `${id} waits on ${unfinished.length}`).toBe(unfinished.length);
      expect(item.blocked_by.map((b: { id: string }) => b.id).sort()).toEqual(unfinished.sort());
      if (unfinished.length === 0) shouldBeReady.add(id);
    }
    // The claim takes exactly the dependents whose dependencies all completed.
    const claimed = new Set<string>();
    for (;;) {
      const answer = await fetchJson(second.url, 'POST', '/work/claim', { agent: 'after', types: ['dependent'] });
      if (answer.status === 204) break;
      claimed.add(answer.body.id);
    }
    expect([...claimed].sort()).toEqual([...shouldBeReady].sort());
  }, 180_000);
});
