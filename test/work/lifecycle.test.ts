import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { createJumpingClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// The expected lifecycle, written out from the issue independently of src/work/items/lifecycle.ts.
const STATUSES = ['queued', 'dispatched', 'in_progress', 'blocked', 'completed', 'failed', 'cancelled'] as const;
type Status = (typeof STATUSES)[number];
const ALLOWED: Record<Status, Status[]> = {
  queued: ['dispatched', 'cancelled'],
  dispatched: ['in_progress', 'queued', 'cancelled', 'dispatched'],
  in_progress: ['blocked', 'completed', 'failed', 'dispatched'],
  blocked: ['in_progress', 'failed', 'dispatched'],
  completed: [],
  failed: [],
  cancelled: [],
};
const OUTCOME: Partial<Record<Status, string>> = { completed: 'success', failed: 'failed', cancelled: 'cancelled' };

function bodyFor(to: Status): Record<string, string> {
  if (to === 'dispatched') return { status: to, agent: 'agent-b' };
  const outcome = OUTCOME[to];
  return outcome ? { status: to, outcome } : { status: to };
}

describe.each(await storesUnderTest())('work item lifecycle on %s', (kind) => {
  let t: TestApp;
  // A later write gets a later timestamp by moving the clock, not by sleeping.
  const clock = createJumpingClock();
  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { now: clock.now });
  });
  afterAll(() => t.close());

  const patch = (id: string, body: unknown) => call(t.app, 'PATCH', `/work/${id}`, body);

  /** Creates an item and walks it to `status` through the API. */
  async function itemIn(status: Status): Promise<string> {
    const dispatched = !['queued', 'cancelled'].includes(status);
    const created = await call(t.app, 'POST', '/work', {
      type: 'code_review',
      description: `an item headed for ${status}`,
      ...(dispatched && { agent: 'agent-a' }),
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const path: Record<string, unknown>[] = {
      queued: [],
      dispatched: [],
      in_progress: [{ status: 'in_progress' }],
      blocked: [{ status: 'in_progress' }, { status: 'blocked' }],
      completed: [{ status: 'in_progress' }, { status: 'completed', outcome: 'success' }],
      failed: [{ status: 'in_progress' }, { status: 'failed', outcome: 'failed' }],
      cancelled: [{ status: 'cancelled', outcome: 'cancelled' }],
    }[status];
    for (const step of path) expect((await patch(id, step)).status).toBe(200);
    return id;
  }

  for (const from of STATUSES) {
    for (const to of STATUSES) {
      const allowed = from === to || ALLOWED[from].includes(to);
      it(`${from} → ${to} is ${allowed ? 'accepted' : 'refused with 409'}`, async () => {
        const id = await itemIn(from);
        const before = (await call(t.app, 'GET', `/work/${id}`)).body;
        const response = await patch(id, bodyFor(to));
        if (!allowed) {
          expect(response.status).toBe(409);
          expect(response.headers['content-type']).toContain('application/problem+json');
          expect(response.body.detail).toContain(from);
          expect(response.body.current_status).toBe(from);
          expect([...response.body.allowed_statuses].sort()).toEqual(ALLOWED[from].filter((s) => s !== from).sort());
          const after = (await call(t.app, 'GET', `/work/${id}`)).body;
          expect(after).toEqual(before);
          return;
        }
        expect(response.status).toBe(200);
        expect(response.body.status).toBe(to);
        if (OUTCOME[to]) expect(response.body.outcome).toBe(OUTCOME[to]);
      });
    }
  }

  it('dispatching a queued item needs an agent, and agent alone dispatches it', async () => {
    const id = await itemIn('queued');
    const missing = await patch(id, { status: 'dispatched' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'agent' })]);

    const dispatched = await patch(id, { agent: 'carol' });
    expect(dispatched.status).toBe(200);
    expect(dispatched.body).toMatchObject({ status: 'dispatched', assigned_agent: 'carol' });
    expect(dispatched.body.dispatch_log).toEqual([
      expect.objectContaining({ agent: 'carol', work_item_id: id, completed_at: null, outcome: null }),
    ]);
  });

  it('release clears the agent and closes the dispatch entry as cancelled', async () => {
    const id = await itemIn('dispatched');
    const released = await patch(id, { status: 'queued' });
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject({ status: 'queued', assigned_agent: null });
    expect(released.body.dispatch_log).toHaveLength(1);
    expect(released.body.dispatch_log[0]).toMatchObject({ agent: 'agent-a', outcome: 'cancelled' });
    expect(released.body.dispatch_log[0].completed_at).not.toBeNull();
  });

  it.each(['dispatched', 'in_progress', 'blocked'] as const)('agent on a %s item reassigns it', async (from) => {
    const id = await itemIn(from);
    const reassigned = await patch(id, { agent: 'dave' });
    expect(reassigned.status).toBe(200);
    expect(reassigned.body).toMatchObject({ status: 'dispatched', assigned_agent: 'dave' });
    const log = reassigned.body.dispatch_log;
    expect(log.map((entry: { agent: string }) => entry.agent)).toEqual(['agent-a', 'dave']);
    expect(log[0]).toMatchObject({ outcome: 'cancelled' });
    expect(log[1]).toMatchObject({ outcome: null, completed_at: null });

    const again = await patch(id, { agent: 'dave' });
    expect(again.status).toBe(200);
    expect(again.body.dispatch_log).toHaveLength(2);
    expect(again.body.updated_at).toBe(reassigned.body.updated_at);
  });

  it('the dispatch log keeps the order of rapid reassignments, even within one millisecond', async () => {
    const id = await itemIn('dispatched');
    const agents = Array.from({ length: 12 }, (_, i) => `agent-${i}`);
    for (const agent of agents) await patch(id, { agent });
    const { body } = await call(t.app, 'GET', `/work/${id}`);
    expect(body.dispatch_log.map((entry: { agent: string }) => entry.agent)).toEqual(['agent-a', ...agents]);
    expect(
      body.dispatch_log.filter((entry: { completed_at: string | null }) => entry.completed_at === null),
    ).toHaveLength(1);
    expect(body.dispatch_log.at(-1)).toMatchObject({ agent: 'agent-11', completed_at: null });
  });

  it('completing closes the open dispatch entry with the outcome and sets completed_at', async () => {
    const id = await itemIn('in_progress');
    const done = await patch(id, { status: 'completed', outcome: 'success', notes: 'merged' });
    expect(done.body).toMatchObject({ status: 'completed', outcome: 'success', notes: 'merged' });
    expect(done.body.completed_at).toBe(done.body.updated_at);
    expect(done.body.dispatch_log).toEqual([
      expect.objectContaining({ agent: 'agent-a', outcome: 'success', completed_at: done.body.completed_at }),
    ]);
  });

  it('blocked → failed closes the entry as failed; cancel from queued needs no entry', async () => {
    const blocked = await itemIn('blocked');
    const failed = await patch(blocked, { outcome: 'failed' });
    expect(failed.body).toMatchObject({ status: 'failed', outcome: 'failed' });
    expect(failed.body.dispatch_log[0]).toMatchObject({ outcome: 'failed' });

    const queued = await itemIn('queued');
    const cancelled = await patch(queued, { outcome: 'cancelled' });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', outcome: 'cancelled', dispatch_log: [] });
  });

  it('an outcome alone implies its status', async () => {
    const id = await itemIn('in_progress');
    const done = await patch(id, { outcome: 'success' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', outcome: 'success' });
  });

  it('a final status without its outcome, or with another one, is a 422 on outcome', async () => {
    const id = await itemIn('in_progress');
    for (const body of [
      { status: 'completed' },
      { status: 'completed', outcome: 'failed' },
      { status: 'failed', outcome: 'success' },
      { status: 'cancelled', outcome: 'success' },
      { status: 'blocked', outcome: 'failed' },
    ]) {
      const response = await patch(id, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'outcome' })]);
    }
    expect((await call(t.app, 'GET', `/work/${id}`)).body.status).toBe('in_progress');
  });

  it('repeating the current status is an idempotent 200 that changes nothing', async () => {
    const id = await itemIn('completed');
    const before = (await call(t.app, 'GET', `/work/${id}`)).body;
    const retry = await patch(id, { status: 'completed', outcome: 'success' });
    expect(retry.status).toBe(200);
    // GET adds the item's plan (depends_on, blocked_by, children); the rest is the same.
    expect(before).toMatchObject(retry.body);
    expect(retry.body.version).toBe(before.version);
  });

  it('notes can still be edited on a final item, and updated_at moves; other moves are 409', async () => {
    const id = await itemIn('failed');
    const before = (await call(t.app, 'GET', `/work/${id}`)).body;
    clock.advance(5);
    const noted = await patch(id, { notes: 'post-mortem: flaky network' });
    expect(noted.status).toBe(200);
    expect(noted.body.notes).toBe('post-mortem: flaky network');
    expect(noted.body.updated_at > before.updated_at).toBe(true);
    expect(noted.body.completed_at).toBe(before.completed_at);
    expect((await patch(id, { agent: 'someone' })).status).toBe(409);
    const cleared = await patch(id, { notes: null });
    expect(cleared.body.notes).toBeNull();
  });

  it('agent given with a status other than dispatched must be the holder: 409 naming the holder', async () => {
    const id = await itemIn('dispatched');
    const other = await patch(id, { status: 'in_progress', agent: 'mallory' });
    expect(other.status).toBe(409);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(other.body.detail).toContain('dispatched to agent-a');
    expect(other.body.holder).toBe('agent-a');
    const same = await patch(id, { status: 'in_progress', agent: 'agent-a' });
    expect(same.status).toBe(200);
    expect(same.body.status).toBe('in_progress');
  });

  it('two conflicting moves on one item: exactly one wins, the other gets 409', async () => {
    for (let round = 0; round < 10; round += 1) {
      const id = await itemIn('in_progress');
      const results = await Promise.all([
        patch(id, { status: 'completed', outcome: 'success' }),
        patch(id, { status: 'failed', outcome: 'failed' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const final = (await call(t.app, 'GET', `/work/${id}`)).body;
      const winner = results.find((r) => r.status === 200)!.body;
      expect(final.status).toBe(winner.status);
      expect(final.dispatch_log).toHaveLength(1);
      expect(final.dispatch_log[0].outcome).toBe(final.outcome);
    }
  });

  it('PATCH on an unknown item is 404', async () => {
    const response = await patch('6f1c1f4e-8a3b-4c55-9d7e-0a1b2c3d4e5f', { status: 'in_progress' });
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toContain('application/problem+json');
  });
});
