import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESS_MIN_BYTES } from '../../src/work/stats/compress.js';
import { leadTimeBucket, quantileSeconds } from '../../src/work/stats/lead-time.js';
import { createStatsService } from '../../src/work/stats/service.js';
import { createStatsStore } from '../../src/work/stats/store/index.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { createJumpingClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// GET /work/stats through HTTP on both stores: what the desk did (submit, claim, complete, fail
// as different agents, delete) is what the numbers say, before and after compaction, and two
// compactions at once count nothing twice.

const hourOf = (iso: string) => `${iso.slice(0, 13)}:00:00.000Z`;

/** What a histogram of these lead times answers for quantile q, the service's own rule. */
function expectedQuantile(leadMs: number[], q: number): number | null {
  const counts = new Map<number, number>();
  for (const ms of leadMs) counts.set(leadTimeBucket(ms), (counts.get(leadTimeBucket(ms)) ?? 0) + 1);
  return quantileSeconds(counts, q);
}

describe.each(await storesUnderTest())('GET /work/stats on %s', (kind) => {
  let t: TestApp;
  const items: any[] = [];
  const lead: Record<string, number[]> = { ann: [], bob: [] };
  const failed: Record<string, number> = { ann: 0, bob: 0 };
  // Lead times are made by moving the clock, not by holding a claim for real.
  const clock = createJumpingClock();

  async function finish(agent: string, type: string, outcome: 'completed' | 'failed', holdMs: number) {
    const claimed = await call(t.app, 'POST', '/work/claim', { agent, types: [type], lease_s: 60 });
    expect(claimed.status).toBe(200);
    clock.advance(holdMs);
    const body =
      outcome === 'completed' ? { status: 'completed', outcome: 'success' } : { status: 'failed', outcome: 'failed' };
    const done = await call(t.app, 'PATCH', `/work/${claimed.body.id}`, body);
    expect(done.status).toBe(200);
    const entry = done.body.dispatch_log.at(-1);
    if (outcome === 'completed') lead[agent]!.push(Date.parse(entry.completed_at) - Date.parse(entry.dispatched_at));
    else failed[agent]! += 1;
  }

  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { now: clock.now });
    for (let i = 0; i < 10; i += 1) {
      const created = await call(t.app, 'POST', '/work', {
        type: i < 7 ? 'triage' : 'reply',
        description: `item ${i}`,
      });
      expect(created.status).toBe(201);
      items.push(created.body);
    }
    // ann: four done (lead times spread over buckets), one failed; bob: one done, one failed.
    for (const hold of [5, 30, 60, 120]) await finish('ann', 'triage', 'completed', hold);
    await finish('ann', 'triage', 'failed', 1);
    await finish('bob', 'reply', 'completed', 40);
    await finish('bob', 'reply', 'failed', 1);
    // One claimed and left in progress; one dispatched at submission.
    expect((await call(t.app, 'POST', '/work/claim', { agent: 'bob', types: ['triage'] })).status).toBe(200);
    expect(
      (await call(t.app, 'POST', '/work', { type: 'reply', description: 'handed over', agent: 'cy' })).status,
    ).toBe(201);
  });
  afterAll(() => t.close());

  async function stats(days = 7) {
    const response = await call(t.app, 'GET', `/work/stats?days=${days}`);
    expect(response.status).toBe(200);
    return response.body;
  }

  async function itemsNow() {
    return (await call(t.app, 'GET', '/work?limit=1000')).body as any[];
  }

  function expectMatchesItems(body: any, all: any[]) {
    const byStatus: Record<string, number> = {};
    for (const item of all) byStatus[item.status] = (byStatus[item.status] ?? 0) + 1;
    expect(body.by_status).toEqual({
      queued: 0,
      dispatched: 0,
      in_progress: 0,
      blocked: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
      ...byStatus,
    });
    const last = body.hourly.at(-1);
    expect(last.depth).toEqual({
      queued: byStatus.queued ?? 0,
      dispatched: byStatus.dispatched ?? 0,
      in_progress: byStatus.in_progress ?? 0,
      blocked: 0,
    });
  }

  it('counts what was done: statuses, types, hourly flow, depth, agents and their lead times', async () => {
    const body = await stats();
    const all = await itemsNow();
    expectMatchesItems(body, all);
    expect(body.by_status).toMatchObject({ queued: 2, dispatched: 1, in_progress: 1, completed: 5, failed: 2 });
    expect(body.by_type).toEqual([
      {
        type: 'triage',
        total: 7,
        by_status: { queued: 1, dispatched: 0, in_progress: 1, blocked: 0, completed: 4, failed: 1, cancelled: 0 },
      },
      {
        type: 'reply',
        total: 4,
        by_status: { queued: 1, dispatched: 1, in_progress: 0, blocked: 0, completed: 1, failed: 1, cancelled: 0 },
      },
    ]);
    expect(body.hourly).toHaveLength(7 * 24 + 1);
    expect(Date.parse(body.until) - Date.parse(body.since)).toBeGreaterThanOrEqual(7 * 24 * 3_600_000);
    // Hour by hour, as the items' own timestamps say.
    const created: Record<string, number> = {};
    const completed: Record<string, number> = {};
    const failedAt: Record<string, number> = {};
    for (const item of all) {
      created[hourOf(item.created_at)] = (created[hourOf(item.created_at)] ?? 0) + 1;
      if (item.status === 'completed')
        completed[hourOf(item.completed_at)] = (completed[hourOf(item.completed_at)] ?? 0) + 1;
      if (item.status === 'failed')
        failedAt[hourOf(item.completed_at)] = (failedAt[hourOf(item.completed_at)] ?? 0) + 1;
    }
    for (const hour of body.hourly) {
      expect([hour.hour, hour.created, hour.completed, hour.failed]).toEqual([
        hour.hour,
        created[hour.hour] ?? 0,
        completed[hour.hour] ?? 0,
        failedAt[hour.hour] ?? 0,
      ]);
    }
    expect(body.totals).toEqual({ created: 11, completed: 5, failed: 2, cancelled: 0 });
    // Nothing existed before the first item's hour.
    const firstHour = hourOf(all.map((item) => item.created_at).sort()[0]);
    const before = body.hourly.filter((hour: any) => hour.hour < firstHour);
    expect(before.every((hour: any) => Object.values(hour.depth).every((n) => n === 0))).toBe(true);

    expect(body.agents).toEqual([
      {
        agent: 'ann',
        completed: 4,
        failed: 1,
        failure_rate: 0.2,
        lead_time_median_s: expectedQuantile(lead.ann!, 0.5),
        lead_time_p90_s: expectedQuantile(lead.ann!, 0.9),
      },
      {
        agent: 'bob',
        completed: 1,
        failed: 1,
        failure_rate: 0.5,
        lead_time_median_s: expectedQuantile(lead.bob!, 0.5),
        lead_time_p90_s: expectedQuantile(lead.bob!, 0.9),
      },
    ]);
    // Within a bucket's width of the true values: ann's median is her second-fastest of four.
    const sorted = [...lead.ann!].sort((a, b) => a - b);
    expect(body.agents[0].lead_time_median_s * 1000).toBeGreaterThan(sorted[1]! / 1.1);
    expect(body.agents[0].lead_time_median_s * 1000).toBeLessThan(sorted[1]! * 1.1 + 1);

    const queued = all
      .filter((item) => item.status === 'queued')
      .map((item) => item.created_at)
      .sort();
    const age = (Date.parse(body.generated_at) - Date.parse(queued[0])) / 1000;
    expect(body.oldest_queued_age_s).toBeCloseTo(age, 2);
    expect(body.oldest_queued_by_type.map((row: any) => row.type).sort()).toEqual(['reply', 'triage']);
  });

  it('gives the same numbers after two compactions run at once, with writes in between', async () => {
    const before = await stats();
    const one = createStatsStore(t.database);
    const two = createStatsStore(t.database);
    const moved = await Promise.all([one.compact(), two.compact(), one.compact()]);
    expect(moved.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const after = await stats();
    expect({ ...after, generated_at: 0, until: 0, oldest_queued_age_s: 0, oldest_queued_by_type: 0 }).toEqual({
      ...before,
      generated_at: 0,
      until: 0,
      oldest_queued_age_s: 0,
      oldest_queued_by_type: 0,
    });
    // Writes racing compactions: every one counted once.
    const racing = Array.from({ length: 20 }, (_, i) =>
      call(t.app, 'POST', '/work', { type: 'race', description: `r${i}` }),
    );
    await Promise.all([...racing, one.compact(), two.compact(), one.compact(), two.compact()]);
    await Promise.all([one.compact(), two.compact()]);
    const raced = await stats();
    expect(raced.by_status.queued).toBe(before.by_status.queued + 20);
    expect(raced.totals.created).toBe(before.totals.created + 20);
    expectMatchesItems(raced, await itemsNow());
  });

  it('a deleted item leaves the counts but not the history of what was created', async () => {
    const before = await stats();
    const queued = (await itemsNow()).find((item) => item.type === 'race');
    expect((await call(t.app, 'DELETE', `/work/${queued.id}`)).status).toBe(204);
    const after = await stats();
    expect(after.by_status.queued).toBe(before.by_status.queued - 1);
    expect(after.totals.created).toBe(before.totals.created);
    expect(after.by_type.find((row: any) => row.type === 'race').total).toBe(19);
    await createStatsStore(t.database).compact();
    expect((await stats()).by_status).toEqual(after.by_status);
    expectMatchesItems(after, await itemsNow());
  });

  it('walks depth back through the hours: an hour before any item shows none, later hours all', async () => {
    const all = await itemsNow();
    const service = createStatsService({
      store: createStatsStore(t.database),
      now: () => new Date(Date.now() + 3 * 3_600_000),
    });
    const body = await service.workStats(1);
    const lastCreated = hourOf(
      all
        .map((item) => item.created_at)
        .sort()
        .at(-1),
    );
    const later = body.hourly.filter((hour) => hour.hour > lastCreated);
    expect(later.length).toBeGreaterThanOrEqual(2);
    for (const hour of later) expect(hour.depth).toEqual(body.hourly.at(-1)!.depth);
    expect(await service.itemsByStatusAndType()).toContainEqual({ status: 'completed', type: 'triage', count: 4 });
    const at = new Date(Date.now() + 3 * 3_600_000);
    const fixed = createStatsService({ store: createStatsStore(t.database), now: () => at });
    const ages = await fixed.oldestQueuedAgeSeconds(['race', 'reply', 'triage'], true);
    expect(ages.byType.map((row) => row.type).sort()).toEqual(['race', 'reply', 'triage']);
    expect(ages.byType[0]!.age_s).toBeGreaterThan(3 * 3_600 - 60);
    expect(ages.rest).toBeNull();
    // The types not asked for are answered together: the oldest of theirs.
    const some = await fixed.oldestQueuedAgeSeconds(['race'], true);
    expect(some.byType.map((row) => row.type)).toEqual(['race']);
    expect(some.rest).toBe(Math.max(...ages.byType.filter((row) => row.type !== 'race').map((row) => row.age_s)));
    // Not asked for the rest (the scrape knows from the counts that none is queued): none read.
    expect((await fixed.oldestQueuedAgeSeconds(['race'], false)).rest).toBeNull();
  });

  it('counts every item of claims and completions written together once (a burst of agents)', async () => {
    const before = await stats();
    const burst = await Promise.all(
      Array.from({ length: 24 }, (_, i) => call(t.app, 'POST', '/work', { type: 'burst', description: `b${i}` })),
    );
    expect(burst.every((created) => created.status === 201)).toBe(true);
    // At once, so the store writes the claims (and then the completions) several to a statement.
    const claimed = await Promise.all(
      burst.map(() => call(t.app, 'POST', '/work/claim', { agent: 'dee', types: ['burst'] })),
    );
    expect(claimed.map((answer) => answer.status)).toEqual(burst.map(() => 200));
    const done = await Promise.all(
      claimed.map((answer, i) =>
        call(
          t.app,
          'PATCH',
          `/work/${answer.body.id}`,
          i % 4 === 0 ? { status: 'failed', outcome: 'failed' } : { status: 'completed', outcome: 'success' },
        ),
      ),
    );
    expect(done.map((answer) => answer.status)).toEqual(burst.map(() => 200));
    const after = await stats();
    expectMatchesItems(after, await itemsNow());
    expect(after.by_type.find((row: any) => row.type === 'burst')).toEqual({
      type: 'burst',
      total: 24,
      by_status: { queued: 0, dispatched: 0, in_progress: 0, blocked: 0, completed: 18, failed: 6, cancelled: 0 },
    });
    expect(after.totals).toEqual({
      ...before.totals,
      created: before.totals.created + 24,
      completed: before.totals.completed + 18,
      failed: before.totals.failed + 6,
    });
    expect(after.agents.find((row: any) => row.agent === 'dee')).toMatchObject({ completed: 18, failed: 6 });
    await createStatsStore(t.database).compact();
    expect((await stats()).by_type).toEqual(after.by_type);
  });

  it('sends the answer br- or gzip-compressed to a client that accepts it, and plain to one that does not', async () => {
    const get = (acceptEncoding?: string) =>
      t.app.inject({
        method: 'GET',
        url: '/work/stats?days=7',
        headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
      });
    const plain = await get();
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    const expected = JSON.parse(plain.body);
    const steady = ({ generated_at, until, oldest_queued_age_s, oldest_queued_by_type, ...rest }: any) => rest;

    const cases = [
      ['gzip, deflate, br, zstd', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
      ['br;q=0.5, gzip;q=0.9', 'gzip', gunzipSync],
      ['*', 'br', brotliDecompressSync],
    ] as const;
    for (const [accept, coding, decode] of cases) {
      const packed = await get(accept);
      expect(packed.statusCode, accept).toBe(200);
      expect(packed.headers['content-encoding'], accept).toBe(coding);
      expect(packed.headers['content-type']).toMatch(/^application\/json/);
      expect(packed.rawPayload.length, accept).toBeLessThan(plain.rawPayload.length / 3);
      // The same numbers, but for those that move with the clock.
      expect(steady(JSON.parse(decode(packed.rawPayload).toString('utf8')))).toEqual(steady(expected));
    }
    for (const accept of ['identity', 'gzip;q=0, br;q=0', 'deflate']) {
      expect((await get(accept)).headers['content-encoding'], accept).toBeUndefined();
    }
    // A small answer (a problem document) and the hot paths go out as they are.
    const bad = await t.app.inject({
      method: 'GET',
      url: '/work/stats?days=0',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.headers['content-encoding']).toBeUndefined();
    const list = await t.app.inject({ method: 'GET', url: '/work?limit=100', headers: { 'accept-encoding': 'gzip' } });
    expect(list.headers['content-encoding']).toBeUndefined();
  });

  it('refuses a bad number of days with a problem document', async () => {
    for (const days of ['0', '32', 'abc', '1.5']) {
      const response = await call(t.app, 'GET', `/work/stats?days=${days}`);
      expect(response.status).toBe(422);
      expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    }
  });
});
