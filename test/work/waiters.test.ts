import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type JsonResponse, call } from '../support/http.js';
import { type Scrape, parsePrometheus } from '../support/prometheus.js';

// Waiting claims (long polls with wait_s) on both stores: what wakes them, whom, how many, and
// that however many wait, each item goes to exactly one agent. How many reads of the queue the
// claims made is the counter agentdesk_work_claim_reads_total; how many wait, the gauge
// agentdesk_work_claims_waiting. No clock is read: each step waits for what it needs to see.

const READS = 'agentdesk_work_claim_reads_total';
const WAITING = 'agentdesk_work_claims_waiting';

describe.each(await storesUnderTest())('waiting claims on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t.close());

  const scrape = async (): Promise<Scrape> =>
    parsePrometheus((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
  /** Scrapes until `done` holds (the test's own timeout bounds the wait). */
  const scrapeUntil = async (done: (m: Scrape) => boolean): Promise<Scrape> =>
    vi.waitFor(
      async () => {
        const metrics = await scrape();
        if (!done(metrics)) throw new Error('the metrics have not moved yet');
        return metrics;
      },
      { timeout: 20_000, interval: 20 },
    );
  const submit = async (body: Record<string, unknown>) => {
    const response = await call(t.app, 'POST', '/work', { description: 'a task', ...body });
    expect(response.status, response.text).toBe(201);
    return response.body as { id: string };
  };
  /** Starts a long poll and returns once the service counts it as waiting (wrapped: an async function would await it). */
  const wait = async (body: Record<string, unknown>): Promise<{ answer: Promise<JsonResponse> }> => {
    const before = (await scrape()).value(WAITING);
    const answer = call(t.app, 'POST', '/work/claim', { wait_s: 30, ...body });
    await scrapeUntil((m) => m.value(WAITING) === before + 1);
    return { answer };
  };

  it('an item wakes one waiter, the oldest that can take it; a heartbeat, an edit, another type wake no one', async () => {
    const a = `wake_a_${kind}`;
    const b = `wake_b_${kind}`;
    const waitingA = [];
    const waitingB = [];
    for (let i = 0; i < 4; i += 1) waitingA.push(await wait({ agent: `a-${i}`, types: [a] }));
    for (let i = 0; i < 4; i += 1) waitingB.push(await wait({ agent: `b-${i}`, types: [b, 'unrelated'] }));
    const start = (await scrape()).value(READS);

    const first = await submit({ type: a });
    const answer = await waitingA[0]!.answer;
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(first.id);
    // A new item of this process goes to the waiter it wakes by its version, with no read of
    // the queue; a woken waiter without one reads: no read at all, so no other waiter woke.
    let m = await scrapeUntil((s) => s.value(WAITING) === 7);
    expect(m.value(READS) - start).toBe(0);

    // Commits that make nothing claimable: a heartbeat and an edit of the claimed item, a new
    // item held for an agent that is not waiting, a completed item.
    expect((await call(t.app, 'POST', `/work/${first.id}/heartbeat`, { agent: 'a-0' })).status).toBe(200);
    expect((await call(t.app, 'PATCH', `/work/${first.id}`, { description: 'edited' })).status).toBe(200);
    // A completion that releases no dependent (the dependents' release runs with every completion).
    const done = await call(t.app, 'PATCH', `/work/${first.id}`, {
      status: 'completed',
      outcome: 'success',
      agent: 'a-0',
    });
    expect(done.status, done.text).toBe(200);
    await submit({ type: b, agent: 'nobody-waiting' });
    // The next item of b is then the only news, for the oldest b waiter; none of them read.
    const second = await submit({ type: b });
    const answerB = await waitingB[0]!.answer;
    expect(answerB.body.id).toBe(second.id);
    m = await scrapeUntil((s) => s.value(WAITING) === 6);
    expect(m.value(READS) - start).toBe(0);

    // The rest, in the order they came.
    for (let i = 1; i < 4; i += 1) {
      const item = await submit({ type: a });
      expect((await waitingA[i]!.answer).body.id).toBe(item.id);
    }
    const mine = await submit({ type: b, agent: 'b-3' });
    expect((await waitingB[3]!.answer).body.id).toBe(mine.id);
    for (let i = 1; i < 3; i += 1) {
      const item = await submit({ type: b });
      expect((await waitingB[i]!.answer).body.id).toBe(item.id);
    }
    m = await scrapeUntil((s) => s.value(WAITING) === 0);
    expect(m.value(READS) - start).toBe(0);
  });

  it('a release wakes the oldest waiter of its type; a dispatch to one agent wakes that agent, not an older waiter', async () => {
    const type = `wake_release_${kind}`;
    const item = await submit({ type });
    expect((await call(t.app, 'POST', '/work/claim', { agent: 'holder', types: [type], start: false })).status).toBe(
      200,
    );
    const first = await wait({ agent: 'rel-a', types: [type] });
    const start = (await scrape()).value(READS);
    // Reads: the release wakes rel-a (1); rel-x and rel-y each try once as they come (2); the
    // dispatch wakes rel-y alone (1).
    const released = await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'queued' });
    expect(released.status, released.text).toBe(200);
    expect((await first.answer).body.id).toBe(item.id);

    const older = await wait({ agent: 'rel-x', types: [type] });
    const named = await wait({ agent: 'rel-y', types: [type] });
    const again = await submit({ type, run_after: '2999-01-01T00:00:00Z' });
    const moved = await call(t.app, 'PATCH', `/work/${again.id}`, { status: 'dispatched', agent: 'rel-y' });
    expect(moved.status, moved.text).toBe(200);
    expect((await named.answer).body.id).toBe(again.id);
    const m = await scrapeUntil((s) => s.value(WAITING) === 1);
    expect(m.value(READS) - start).toBe(4);
    // The older waiter is still there, and takes the next item.
    const next = await submit({ type });
    expect((await older.answer).body.id).toBe(next.id);
  });

  it('a project filter wakes only for items of that project', async () => {
    const type = `wake_project_${kind}`;
    const { body: project } = await call(t.app, 'POST', '/projects', { name: `waiters ${kind}` });
    const inProject = await wait({ agent: 'proj-a', types: [type], project_id: project.id });
    const start = (await scrape()).value(READS);
    await submit({ type });
    const item = await submit({ type, project_id: project.id });
    expect((await inProject.answer).body.id).toBe(item.id);
    // The item of another project woke no one (no read); its own went by its version.
    expect((await scrape()).value(READS) - start).toBe(0);
  });

  it('500 waiting agents and 2,000 items: every item goes to exactly one agent', { timeout: 240_000 }, async () => {
    const types = Array.from({ length: 10 }, (_, i) => `fleet_${i}_${kind}`);
    const total = 2_000;
    const claimedBy = new Map<string, string>();
    const duplicates: string[] = [];
    let done = false;
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => (finish = resolve));
    // Each agent takes one or two of the types, so the filters overlap.
    const agents = Array.from({ length: 500 }, async (_, index) => {
      const agent = `fleet-${index}`;
      const filter = index % 3 === 0 ? [types[index % 10]!, types[(index + 1) % 10]!] : [types[index % 10]!];
      while (!done) {
        // Short waits, so the fleet goes home soon after the last item; most polls end with one.
        const response = await call(t.app, 'POST', '/work/claim', { agent, types: filter, wait_s: 3 });
        if (response.status === 204) continue;
        expect(response.status, response.text).toBe(200);
        if (claimedBy.has(response.body.id)) duplicates.push(response.body.id);
        claimedBy.set(response.body.id, agent);
        if (claimedBy.size === total) finish();
      }
    });
    await scrapeUntil((m) => m.value(WAITING) === 500);
    const submitted = new Set<string>();
    for (let start = 0; start < total; start += 50) {
      const created = await Promise.all(
        Array.from({ length: 50 }, (_, i) => submit({ type: types[(start + i) % 10]! })),
      );
      for (const item of created) submitted.add(item.id);
    }
    await finished;
    done = true;
    await Promise.all(agents);
    expect(duplicates).toEqual([]);
    expect(new Set(claimedBy.keys())).toEqual(submitted);
    for (const type of types) {
      const listed = await call(t.app, 'GET', `/work?type=${type}&limit=1000`);
      expect(listed.body).toHaveLength(total / 10);
      for (const item of listed.body) {
        expect(item.status).toBe('in_progress');
        expect(item.assigned_agent).toBe(claimedBy.get(item.id));
        expect(item.attempts).toBe(1);
      }
    }
  });
});
