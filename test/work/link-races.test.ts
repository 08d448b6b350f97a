import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkApp } from '../../src/services/work.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { type TestApp, captureLogs, startWorkApp, testConfig } from '../support/apps.js';
import { openTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Concurrent changes of one item's links. Two PATCHes of depends_on (or parent_id) sent at
// once must each see the links the other wrote: an item never waits on more or fewer
// dependencies than it has unfinished, and completing a dependency never fails. On PostgreSQL
// the PATCHes go to two instances of the service on one database; on SQLite to one instance.
// No timing is assumed: every round checks the state whatever order the requests ran in.

const ROUNDS = 50;

describe.each(await storesUnderTest())('concurrent link changes on %s', (kind) => {
  let t: TestApp;
  let apps: HttpApp[];
  let closeSecond = async () => {};
  beforeAll(async () => {
    t = await startWorkApp(kind);
    apps = [t.app];
    if (kind === 'postgres') {
      const database = await openTestDatabase(t.testDatabase);
      const second = await buildWorkApp({
        config: testConfig(t.testDatabase),
        database,
        logger: captureLogs('warn').logger,
      });
      await second.ready();
      apps.push(second);
      closeSecond = async () => {
        await second.close();
        await database.close();
      };
    }
  }, 60_000);
  afterAll(async () => {
    await closeSecond();
    await t.close();
  });

  const on = (n: number) => apps[n % apps.length]!;
  const submit = async (body: Record<string, unknown>) => {
    const response = await call(t.app, 'POST', '/work', { type: `race-${kind}`, description: 'a step', ...body });
    expect(response.status, response.text).toBe(201);
    return response.body.id as string;
  };
  const get = async (id: string) => (await call(t.app, 'GET', `/work/${id}`)).body;
  const complete = async (id: string) => {
    for (const move of [
      { status: 'dispatched' },
      { status: 'in_progress' },
      { status: 'completed', outcome: 'success' },
    ]) {
      const response = await call(t.app, 'PATCH', `/work/${id}`, { ...move, agent: 'ann' });
      expect(response.status, response.text).toBe(200);
    }
  };
  const expectConsistent = async (id: string) => {
    const item = await get(id);
    const deps = await Promise.all((item.depends_on as string[]).map(get));
    const unfinished = deps.filter((dep) => dep.status !== 'completed').map((dep) => dep.id as string);
    expect(item.waiting_on, `${id} waits on ${item.waiting_on}, has ${unfinished.length} unfinished`).toBe(
      unfinished.length,
    );
    expect((item.blocked_by as { id: string }[]).map((b) => b.id).sort()).toEqual(unfinished.sort());
    return item;
  };

  it(`${ROUNDS} rounds of opposite PATCHes of depends_on: waiting_on stays the unfinished dependencies`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const [a, b] = [await submit({}), await submit({})];
      const item = await submit(round % 2 === 0 ? { depends_on: [a] } : {});
      const wanted = [[], [a], [a, b], [b], [a]];
      const answers = await Promise.all(
        wanted.map((depends_on, n) =>
          call(on(n), 'PATCH', `/work/${item}`, {
            depends_on: round % 3 === 0 ? [...depends_on].reverse() : depends_on,
          }),
        ),
      );
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      const settled = await expectConsistent(item);
      // The last write wins whole: its list, none of a stale mixture.
      expect(wanted.map((list) => [...list].sort().join())).toContain([...settled.depends_on].sort().join());
      await complete(a);
      await expectConsistent(item);
      await complete(b);
      expect((await expectConsistent(item)).waiting_on).toBe(0);
    }
  }, 300_000);

  it(`${ROUNDS} rounds of opposite PATCHes of parent_id: the item has one parent, counted once`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const [p, q] = [await submit({}), await submit({})];
      const item = await submit({ parent_id: p });
      const wanted = [null, q, p, null, q];
      const answers = await Promise.all(
        wanted.map((parent_id, n) => call(on(n), 'PATCH', `/work/${item}`, { parent_id })),
      );
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
      const { parent_id } = await get(item);
      for (const parent of [p, q]) expect((await get(parent)).children.total).toBe(parent === parent_id ? 1 : 0);
      // The history tells each move from the parent the item really had.
      const history = (await call(t.app, 'GET', `/work/${item}/history`)).body as {
        changes: { parent_id?: { from: string | null; to: string | null } };
      }[];
      let had: string | null = p;
      for (const entry of history.slice(1)) {
        if (!entry.changes.parent_id) continue;
        expect(entry.changes.parent_id.from).toBe(had);
        had = entry.changes.parent_id.to;
      }
      expect(had).toBe(parent_id);
    }
  }, 300_000);
});
