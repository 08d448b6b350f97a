import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { createJumpingClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

interface Summary {
  id: string;
  priority: number;
  created_at: string;
  status: string;
  assigned_agent: string | null;
  type: string;
  project_id: string | null;
}

function nextUrl(link: unknown): string | null {
  if (typeof link !== 'string') return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  return match ? match[1]! : null;
}

describe.each(await storesUnderTest())('listing work items on %s', (kind) => {
  let t: TestApp;
  // A later write gets a later timestamp by moving the clock, not by sleeping.
  const clock = createJumpingClock();
  let projectId: string;
  const ids: Record<string, string> = {};
  let before: string;

  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { now: clock.now });
    projectId = (await call(t.app, 'POST', '/projects', { name: 'Listing' })).body.id;
    const make = async (name: string, body: Record<string, unknown>) => {
      const response = await call(t.app, 'POST', '/work', { description: name, ...body });
      expect(response.status).toBe(201);
      ids[name] = response.body.id;
      // Distinct milliseconds keep "newest first" unambiguous for the assertions below.
      clock.advance(3);
      return response.body;
    };
    await make('a', { type: 'bug_fix', priority: 3 });
    await make('b', { type: 'bug_fix', priority: 1, agent: 'ann' });
    before = clock.now().toISOString();
    clock.advance(3);
    await make('c', { type: 'code_review', priority: 5, agent: 'bob', project_id: projectId });
    await make('d', { type: 'code_review', priority: 1, project_id: projectId });
    await make('e', { type: 'infra_setup', priority: 2, agent: 'ann' });
    await call(t.app, 'PATCH', `/work/${ids.e}`, { status: 'in_progress' });
  });
  afterAll(() => t.close());

  const list = async (query: string): Promise<string[]> => {
    const response = await call<Summary[]>(t.app, 'GET', `/work${query}`);
    expect(response.status, query).toBe(200);
    return response.body.map((item) => Object.entries(ids).find(([, id]) => id === item.id)?.[0] ?? '?');
  };

  it('is newest first by default and omits dispatch_log but keeps payload', async () => {
    expect(await list('')).toEqual(['e', 'd', 'c', 'b', 'a']);
    const response = await call(t.app, 'GET', '/work');
    expect(response.body[0]).not.toHaveProperty('dispatch_log');
    expect(response.body[0]).toHaveProperty('payload');
    expect(response.headers.link).toBeUndefined();
  });

  it('sort=priority gives queue order: priority 1 first, then oldest first', async () => {
    expect(await list('?sort=priority')).toEqual(['b', 'd', 'e', 'a', 'c']);
  });

  it.each([
    ['?status=dispatched', ['c', 'b']],
    ['?status=in_progress', ['e']],
    ['?status=queued&sort=priority', ['d', 'a']],
    ['?agent=ann', ['e', 'b']],
    ['?type=code_review', ['d', 'c']],
    ['?type=code_review&agent=bob', ['c']],
    ['?status=queued&type=bug_fix', ['a']],
  ])('filters %s', async (query, expected) => {
    expect(await list(query)).toEqual(expected);
  });

  it('filters by project and by since (strictly after, any zone)', async () => {
    expect(await list(`?project_id=${projectId}`)).toEqual(['d', 'c']);
    expect(await list(`?since=${encodeURIComponent(before)}`)).toEqual(['e', 'd', 'c']);
    const shifted = new Date(before).toISOString().replace('Z', '+00:00');
    expect(await list(`?since=${encodeURIComponent(shifted)}`)).toEqual(['e', 'd', 'c']);
    const c = (await call(t.app, 'GET', `/work/${ids.c}`)).body;
    expect(await list(`?since=${encodeURIComponent(c.created_at)}`)).toEqual(['e', 'd']);
  });

  it('GET /work/agent/{agent} lists that agent’s items with the same filters', async () => {
    const response = await call<Summary[]>(t.app, 'GET', '/work/agent/ann');
    expect(response.body.map((item) => item.assigned_agent)).toEqual(['ann', 'ann']);
    expect(await list('/agent/ann?status=dispatched')).toEqual(['b']);
    expect(await list('/agent/nobody')).toEqual([]);
  });

  it('counts per status honour the filters', async () => {
    const all = await call(t.app, 'GET', '/work/counts');
    expect(all.body).toEqual({
      queued: 2,
      dispatched: 2,
      in_progress: 1,
      blocked: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
    });
    const ann = await call(t.app, 'GET', '/work/counts?agent=ann');
    expect(ann.body).toMatchObject({ dispatched: 1, in_progress: 1, queued: 0 });
  });

  it.each([
    ['?status=done', 'status'],
    ['?since=yesterday', 'since'],
    ['?since=2026-11-21T08:00:00', 'since'],
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?limit=ten', 'limit'],
    ['?sort=random', 'sort'],
    ['?project_id=abc', 'project_id'],
    ['?cursor=definitely-not-a-cursor', 'cursor'],
    ['?colour=red', 'colour'],
  ])('%s is a 422 naming the parameter', async (query, field) => {
    const response = await call(t.app, 'GET', `/work${query}`);
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('a cursor whose parts are well-formed but name no real time is a 422 on cursor, not a 500 (found by the fuzzer)', async () => {
    const cursor = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const id = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    for (const time of [
      '2024-99-99T99:99:99.999Z',
      '2024-02-30T00:00:00.000Z',
      '0000-00-00T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '2024-01-01T24:00:00.000Z',
    ]) {
      for (const sort of ['newest', 'priority']) {
        const response = await call(t.app, 'GET', `/work?sort=${sort}&cursor=${cursor([sort, time, id, 3])}`);
        expect(response.status, `${sort} ${time}: ${response.text}`).toBe(422);
        expect(response.body.errors).toEqual([{ field: 'cursor', message: expect.any(String) }]);
      }
    }
  });

  it('a cursor from one sort order is refused by the other', async () => {
    const first = await call(t.app, 'GET', '/work?limit=2');
    const next = nextUrl(first.headers.link)!;
    const cursor = new URL(next, 'http://x').searchParams.get('cursor');
    const response = await call(t.app, 'GET', `/work?sort=priority&cursor=${cursor}`);
    expect(response.status).toBe(422);
    expect(response.body.errors[0].field).toBe('cursor');
  });
});

describe.each(await storesUnderTest())('paging on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t.close());

  async function seed(count: number, priority: (i: number) => number): Promise<string[]> {
    const created: string[] = [];
    for (let start = 0; start < count; start += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, count - start) }, (_, offset) =>
          call(t.app, 'POST', '/work', {
            type: 'page',
            description: `item ${start + offset}`,
            priority: priority(start + offset),
          }),
        ),
      );
      created.push(...batch.map((response) => response.body.id as string));
    }
    return created;
  }

  async function walk(first: string, onPage: (page: number) => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    let url: string | null = first;
    for (let page = 0; url && page < 100; page += 1) {
      const response = await call<Summary[]>(t.app, 'GET', url);
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
      seen.push(...response.body.map((item) => item.id));
      await onPage(page);
      url = nextUrl(response.headers.link);
    }
    return seen;
  }

  it('walks every item exactly once, newest first, while new items arrive', async () => {
    const original = await seed(230, (i) => (i % 5) + 1);
    const seen = await walk('/work?type=page&limit=50', async () => {
      await seed(7, () => 1);
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => original.includes(id)).sort()).toEqual([...original].sort());
    expect(seen).toHaveLength(230);
  });

  it('walks every item exactly once in queue order, keeping the filters across pages', async () => {
    const seen = await walk('/work?type=page&status=queued&sort=priority&limit=64', async () => {
      await seed(5, () => 1);
    });
    expect(new Set(seen).size).toBe(seen.length);
    const items = await Promise.all(seen.map((id) => call(t.app, 'GET', `/work/${id}`)));
    const keys = items.map((r) => [r.body.priority, r.body.created_at, r.body.id].join('|'));
    const sorted = [...items]
      .sort(
        (x, y) =>
          x.body.priority - y.body.priority ||
          x.body.created_at.localeCompare(y.body.created_at) ||
          x.body.id.localeCompare(y.body.id),
      )
      .map((r) => [r.body.priority, r.body.created_at, r.body.id].join('|'));
    expect(keys).toEqual(sorted);
    expect(seen.length).toBeGreaterThanOrEqual(230);
  });

  it('the Link header keeps the query and the last page has none', async () => {
    const first = await call(t.app, 'GET', '/work?type=page&limit=1000');
    expect(first.headers.link).toBeUndefined();
    const small = await call(t.app, 'GET', '/work?type=page&limit=3');
    const next = nextUrl(small.headers.link)!;
    expect(next).toMatch(/^\/work\?/);
    const params = new URL(next, 'http://x').searchParams;
    expect(params.get('type')).toBe('page');
    expect(params.get('limit')).toBe('3');
    expect(params.get('cursor')).toBeTruthy();
  });

  it('default page size is 100', async () => {
    const response = await call<Summary[]>(t.app, 'GET', '/work');
    expect(response.body).toHaveLength(100);
    expect(response.headers.link).toBeDefined();
  });
});
