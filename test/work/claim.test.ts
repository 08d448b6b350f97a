import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { createJumpingClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { parsePrometheus } from '../support/prometheus.js';
import { connectSse } from '../support/sse.js';

// Claiming through HTTP on both stores: order, filters, concurrency, delayed items, long polls.

describe.each(await storesUnderTest())('POST /work/claim on %s', (kind) => {
  let t: TestApp;
  let base: string;
  // Real time, so long polls and their timers run as they do in production; a wait for a
  // delayed item's due time is a jump of the clock instead of a sleep.
  const clock = createJumpingClock();
  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { now: clock.now });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  const submit = async (body: Record<string, unknown>) => {
    const response = await call(t.app, 'POST', '/work', { description: 'a task', ...body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const claim = (body: Record<string, unknown>) => call(t.app, 'POST', '/work/claim', body);
  /** The long polls waiting in the service, as its /metrics reports them. */
  const waitingClaims = async () =>
    parsePrometheus((await t.app.inject({ method: 'GET', url: '/metrics' })).body).value(
      'agentdesk_work_claims_waiting',
    );
  /** Claims until the queue of `type` is empty, so each test starts from nothing claimable. */
  const drain = async (type: string) => {
    while ((await claim({ agent: 'drainer', types: [type] })).status === 200);
  };

  it('takes the agent’s own dispatched items first (oldest first), then the queue by priority, then age', async () => {
    const type = 'order_test';
    const low = await submit({ type, priority: 5 });
    const urgent = await submit({ type, priority: 1 });
    const normalOld = await submit({ type, priority: 3 });
    const normalNew = await submit({ type, priority: 3 });
    const mineOlder = await submit({ type, priority: 5, agent: 'ann' });
    const mineNewer = await submit({ type, priority: 5, agent: 'ann' });
    await submit({ type, priority: 1, agent: 'someone-else' });
    const order: string[] = [];
    for (;;) {
      const response = await claim({ agent: 'ann', types: [type] });
      if (response.status === 204) break;
      expect(response.status).toBe(200);
      order.push(response.body.id);
    }
    expect(order).toEqual([mineOlder.id, mineNewer.id, urgent.id, normalOld.id, normalNew.id, low.id]);
  });

  it('a claimed item is in_progress, dispatched to the agent, on a lease, with one attempt counted', async () => {
    const item = await submit({ type: 'shape_test' });
    const before = clock.now().getTime();
    const response = await claim({ agent: 'bo', types: ['shape_test'], lease_s: 120 });
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe(`"${response.body.version}"`);
    const claimed = response.body;
    expect(claimed).toMatchObject({
      id: item.id,
      status: 'in_progress',
      assigned_agent: 'bo',
      attempts: 1,
      version: 2,
    });
    const lease = Date.parse(claimed.lease_expires_at);
    expect(lease).toBeGreaterThanOrEqual(before + 119_000);
    expect(lease).toBeLessThanOrEqual(clock.now().getTime() + 121_000);
    expect(claimed.dispatch_log).toEqual([
      expect.objectContaining({ agent: 'bo', completed_at: null, outcome: null, reason: null }),
    ]);
    expect((await call(t.app, 'GET', `/work/${item.id}`)).body).toMatchObject(claimed);
  });

  it('start=false leaves the item dispatched, still on a lease', async () => {
    await submit({ type: 'nostart_test' });
    const response = await claim({ agent: 'cy', types: ['nostart_test'], start: false });
    expect(response.body).toMatchObject({ status: 'dispatched', assigned_agent: 'cy', attempts: 1 });
    expect(response.body.lease_expires_at).not.toBeNull();
  });

  it('the holder re-claiming the item its own claim dispatched carries on that attempt; a hand dispatch counts one', async () => {
    const item = await submit({ type: 'reclaim_test', max_attempts: 1 });
    const first = await claim({ agent: 'cy', types: ['reclaim_test'], start: false, lease_s: 60 });
    expect(first.body).toMatchObject({ id: item.id, status: 'dispatched', attempts: 1 });
    const again = await claim({ agent: 'cy', types: ['reclaim_test'], start: false, lease_s: 90 });
    expect(again.body).toMatchObject({ id: item.id, status: 'dispatched', attempts: 1, max_attempts: 1 });
    expect(Date.parse(again.body.lease_expires_at)).toBeGreaterThan(Date.parse(first.body.lease_expires_at));
    const started = await claim({ agent: 'cy', types: ['reclaim_test'] });
    expect(started.body).toMatchObject({ id: item.id, status: 'in_progress', attempts: 1 });
    expect(started.body.dispatch_log).toHaveLength(1);

    // Handed over by a person (no lease yet): the claim starts an attempt.
    const handed = await submit({ type: 'reclaim_test', agent: 'cy' });
    const taken = await claim({ agent: 'cy', types: ['reclaim_test'] });
    expect(taken.body).toMatchObject({ id: handed.id, status: 'in_progress', attempts: 1 });
    const history = await call(t.app, 'GET', `/work/${item.id}/history`);
    expect(
      history.body.filter((entry: any) => entry.action === 'claimed').map((entry: any) => entry.changes.attempts),
    ).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 1 },
      { from: 1, to: 1 },
    ]);
  });

  it('concurrent claims by agents with different filters each get an item of their own filter', async () => {
    const a = await Promise.all(Array.from({ length: 6 }, () => submit({ type: 'mixed_a' })));
    const b = await Promise.all(Array.from({ length: 6 }, () => submit({ type: 'mixed_b' })));
    const claims = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => claim({ agent: `ma-${i}`, types: ['mixed_a'] })),
      ...Array.from({ length: 6 }, (_, i) => claim({ agent: `mb-${i}`, types: ['mixed_b'] })),
      // The same agent twice at once gets two different items.
      claim({ agent: 'twice', types: ['mixed_a', 'mixed_b'] }),
      claim({ agent: 'twice', types: ['mixed_a', 'mixed_b'] }),
    ]);
    const ids = claims.filter((response) => response.status === 200).map((response) => response.body.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(12);
    for (const response of claims.slice(0, 6)) if (response.status === 200) expect(response.body.type).toBe('mixed_a');
    for (const response of claims.slice(6, 12)) if (response.status === 200) expect(response.body.type).toBe('mixed_b');
    expect([...a, ...b].map((item) => item.id).sort()).toEqual([...ids].sort());
  });

  it('filters by types (any of) and project', async () => {
    const { body: project } = await call(t.app, 'POST', '/projects', { name: `claims ${kind}` });
    const other = await submit({ type: 'filter_b' });
    const inProject = await submit({ type: 'filter_a', project_id: project.id });
    const outside = await submit({ type: 'filter_a' });
    const byProject = await claim({ agent: 'di', types: ['filter_a', 'filter_b'], project_id: project.id });
    expect(byProject.body.id).toBe(inProject.id);
    expect((await claim({ agent: 'di', types: ['filter_b'] })).body.id).toBe(other.id);
    expect((await claim({ agent: 'di', types: ['filter_a'] })).body.id).toBe(outside.id);
    expect((await claim({ agent: 'di', types: ['filter_a', 'filter_b'] })).status).toBe(204);
  });

  it('answers 204 with no body when nothing is claimable', async () => {
    const response = await claim({ agent: 'ed', types: ['nothing_here'] });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });

  it('refuses bad requests with 422 naming the field', async () => {
    for (const [body, field] of [
      [{}, 'agent'],
      [{ agent: 'a b' }, 'agent'],
      [{ agent: 'a', lease_s: 0 }, 'lease_s'],
      [{ agent: 'a', lease_s: 86_401 }, 'lease_s'],
      [{ agent: 'a', wait_s: 31 }, 'wait_s'],
      [{ agent: 'a', types: [] }, 'types'],
      [{ agent: 'a', project_id: 'x' }, 'project_id'],
      [{ agent: 'a', start: 'yes' }, 'start'],
      [{ agent: 'a', extra: 1 }, 'extra'],
    ] as const) {
      const response = await claim(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('run_after: queued and listed with it, not claimable before then, claimable after', async () => {
    const runAfter = new Date(clock.now().getTime() + 1_500).toISOString();
    const item = await submit({ type: 'delayed_test', run_after: runAfter });
    expect(item).toMatchObject({ status: 'queued', run_after: runAfter });
    const listed = await call(t.app, 'GET', '/work?type=delayed_test');
    expect(listed.body[0]).toMatchObject({ id: item.id, status: 'queued', run_after: runAfter });
    expect((await claim({ agent: 'fay', types: ['delayed_test'] })).status).toBe(204);
    clock.advance(Date.parse(runAfter) - clock.now().getTime() + 50);
    const later = await claim({ agent: 'fay', types: ['delayed_test'] });
    expect(later.status).toBe(200);
    expect(later.body.id).toBe(item.id);
    expect(later.body.run_after).toBeNull();
  });

  it('8 agents claiming 500 items at once: every item claimed exactly once, none lost', async () => {
    const type = 'burst_test';
    const submitted = new Set<string>();
    for (let batch = 0; batch < 10; batch += 1) {
      const created = await Promise.all(Array.from({ length: 50 }, () => submit({ type })));
      for (const item of created) submitted.add(item.id);
    }
    const claimedBy = new Map<string, string>();
    const duplicates: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const agent = `burst-${index}`;
        for (;;) {
          const response = await claim({ agent, types: [type] });
          if (response.status === 204) return;
          expect(response.status).toBe(200);
          if (claimedBy.has(response.body.id)) duplicates.push(response.body.id);
          claimedBy.set(response.body.id, agent);
        }
      }),
    );
    expect(duplicates).toEqual([]);
    expect(new Set(claimedBy.keys())).toEqual(submitted);
    const listed = await call(t.app, 'GET', `/work?type=${type}&limit=1000`);
    expect(listed.body).toHaveLength(500);
    for (const item of listed.body) {
      expect(item.status).toBe('in_progress');
      expect(item.assigned_agent).toBe(claimedBy.get(item.id));
      expect(item.attempts).toBe(1);
    }
  });

  it('a long poll is answered as soon as a matching item is submitted', async () => {
    const waiting = fetch(`${base}/work/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ agent: 'gil', types: ['poll_test'], wait_s: 10 }),
    });
    await expect.poll(waitingClaims).toBe(1);
    const submittedAt = Date.now();
    const item = await submit({ type: 'poll_test' });
    const response = await waiting;
    expect(response.status).toBe(200);
    expect(Date.now() - submittedAt).toBeLessThan(2_000);
    expect(((await response.json()) as { id: string }).id).toBe(item.id);
  });

  it('a long poll ends with 204 after wait_s when nothing arrives', async () => {
    const started = Date.now();
    const response = await claim({ agent: 'hal', types: ['never_test'], wait_s: 1 });
    expect(response.status).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('a long poll wakes when a delayed item comes due', async () => {
    const waiting = claim({ agent: 'ida', types: ['due_test'], wait_s: 5 });
    await expect.poll(waitingClaims).toBe(1);
    const runAfter = new Date(clock.now().getTime() + 300).toISOString();
    const item = await submit({ type: 'due_test', run_after: runAfter });
    const response = await waiting;
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(item.id);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse(runAfter));
  });

  it('an item due years from now does not make a waiting claim spin (found by the fuzzer)', async () => {
    // Its due time, over 2^31-1 ms away, overflowed setTimeout, which then fires after 1 ms: the
    // waiters woke, found nothing, set the same timer, and so on for the whole wait_s.
    await submit({ type: 'far_test', run_after: '9999-12-31T23:59:59.000Z' });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const cpuBefore = process.cpuUsage();
    try {
      const response = await claim({ agent: 'kim', types: ['never_far'], wait_s: 2 });
      expect(response.status).toBe(204);
    } finally {
      process.off('warning', onWarning);
    }
    const cpu = process.cpuUsage(cpuBefore);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
    // A spinning wait keeps the process busy for most of its 2 s; a quiet one uses a sliver.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(1_000);
  });

  it('a client that disconnects while waiting leaves nothing behind', async () => {
    const controller = new AbortController();
    const waiting = fetch(`${base}/work/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ agent: 'jo', types: ['gone_test'], wait_s: 10 }),
      signal: controller.signal,
    }).catch((error: Error) => error);
    await expect.poll(waitingClaims).toBe(1);
    controller.abort();
    expect(await waiting).toBeInstanceOf(Error);
    await expect.poll(waitingClaims).toBe(0);
    const item = await submit({ type: 'gone_test' });
    // The next claimant gets the item as its first attempt: no claim left behind took it first.
    const next = await claim({ agent: 'kim', types: ['gone_test'] });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ id: item.id, assigned_agent: 'kim', attempts: 1 });
    await drain('gone_test');
  });

  it('/events takes agent, type and project_id: a filtered client gets only its items (and deletions)', async () => {
    const stream = await connectSse(`${base}/events?agent=kim&type=sse_filter`);
    const everything = await connectSse(`${base}/events?type=sse_filter`);
    try {
      const other = await submit({ type: 'sse_filter', agent: 'lou' });
      const mine = await submit({ type: 'sse_filter', agent: 'kim' });
      await submit({ type: 'elsewhere', agent: 'kim' });
      await call(t.app, 'PATCH', `/work/${mine.id}`, { status: 'in_progress', agent: 'kim' });
      await call(t.app, 'DELETE', `/work/${other.id}`);
      const events = await stream.waitFor((all) => all.some((event) => event.event === 'work.deleted'));
      const seen = events
        .filter((event) => event.event.startsWith('work.'))
        .map((event) => [event.event, JSON.parse(event.data).id]);
      expect(seen).toEqual([
        ['work.created', mine.id],
        ['work.updated', mine.id],
        ['work.deleted', other.id],
      ]);
      const all = await everything.waitFor((list) => list.some((event) => event.event === 'work.deleted'));
      expect(all.filter((event) => event.event === 'work.created')).toHaveLength(2);
      expect((await call(t.app, 'GET', '/events?agent=a%20b')).status).toBe(422);
    } finally {
      stream.close();
      everything.close();
    }
  });
});
