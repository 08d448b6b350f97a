import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWEEP_EVERY_MS } from '../../src/work/agent-loop/lease-sweeper.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Leases through HTTP on both stores: expiry back to the queue with a backoff, failure at
// max_attempts, heartbeats, pausing while blocked, and who may act on a held item. The service
// reads a clock the test moves, and the lease sweeper runs when the test says (as its timer
// would, every SWEEP_EVERY_MS): nothing here waits for real time to pass.

/** Longer than the sweeper's timer: the test turns its sweeps by hand. */
const NO_TIMER_MS = 60 * 60 * 1000;

describe.each(await storesUnderTest())('leases on %s', (kind) => {
  let t: TestApp;
  const clock = createTestClock();
  let sweeper: () => Promise<number> = async () => 0;
  beforeAll(async () => {
    t = await startWorkApp(
      kind,
      {},
      { now: clock.now, sweepEveryMs: NO_TIMER_MS, onLeaseSweeper: (sweep) => (sweeper = sweep) },
    );
  });
  afterAll(() => t.close());

  const submit = async (body: Record<string, unknown>) => {
    const response = await call(t.app, 'POST', '/work', { description: 'a task', ...body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const claim = (body: Record<string, unknown>) => call(t.app, 'POST', '/work/claim', body);
  const get = async (id: string) => (await call(t.app, 'GET', `/work/${id}`)).body;
  /** Time passes: the clock moves by `ms` in steps of the sweeper's timer, which sweeps after each. */
  const pass = async (ms: number) => {
    for (let left = ms; left > 0; left -= SWEEP_EVERY_MS) {
      clock.advance(Math.min(left, SWEEP_EVERY_MS));
      await sweeper();
    }
  };
  /** Lets time pass, a timer's step at a time, until `done` holds or `ms` has passed; the last read either way. */
  const waitFor = async (id: string, done: (item: any) => boolean, ms = 5_000) => {
    const until = clock.now().getTime() + ms;
    let item = await get(id);
    while (!done(item) && clock.now().getTime() < until) {
      await pass(SWEEP_EVERY_MS);
      item = await get(id);
    }
    return item;
  };

  it('a lease that runs out returns the item to the queue within 2 s, closing the dispatch as lease_expired', async () => {
    const item = await submit({ type: 'expire_a', retry_delay_s: 0 });
    const claimed = (await claim({ agent: 'ann', types: ['expire_a'], lease_s: 1 })).body;
    const expiry = Date.parse(claimed.lease_expires_at);
    const back = await waitFor(item.id, (current) => current.status === 'queued');
    expect(clock.now().getTime() - expiry).toBeLessThan(2_000 + 500);
    expect(back).toMatchObject({ status: 'queued', assigned_agent: null, attempts: 1, lease_expires_at: null });
    expect(back.dispatch_log).toEqual([
      expect.objectContaining({ agent: 'ann', outcome: 'failed', reason: 'lease_expired' }),
    ]);
    expect(back.dispatch_log[0].completed_at).not.toBeNull();
    const again = await claim({ agent: 'bo', types: ['expire_a'] });
    expect(again.body).toMatchObject({ id: item.id, assigned_agent: 'bo', attempts: 2 });
  });

  it('backs off retry_delay_s × 2^(attempts−1) before the next claim', async () => {
    const item = await submit({ type: 'expire_b', retry_delay_s: 1 });
    await claim({ agent: 'ann', types: ['expire_b'], lease_s: 1 });
    const back = await waitFor(item.id, (current) => current.status === 'queued');
    const expiredAt = Date.parse(back.dispatch_log[0].completed_at);
    expect(Date.parse(back.run_after) - expiredAt).toBe(1_000);
    expect((await claim({ agent: 'bo', types: ['expire_b'] })).status).toBe(204);
    clock.setTo(Date.parse(back.run_after) + 50);
    const second = await claim({ agent: 'bo', types: ['expire_b'], lease_s: 1 });
    expect(second.body.attempts).toBe(2);
    const backAgain = await waitFor(item.id, (current) => current.status === 'queued' && current.attempts === 2);
    const secondExpiry = Date.parse(backAgain.dispatch_log[1].completed_at);
    expect(Date.parse(backAgain.run_after) - secondExpiry).toBe(2_000);
  });

  it('at max_attempts the lease running out fails the item with a note that says why', async () => {
    const item = await submit({ type: 'expire_c', retry_delay_s: 0, max_attempts: 2 });
    await claim({ agent: 'ann', types: ['expire_c'], lease_s: 1 });
    await waitFor(item.id, (current) => current.status === 'queued');
    await claim({ agent: 'cy', types: ['expire_c'], lease_s: 1 });
    const failed = await waitFor(item.id, (current) => current.status === 'failed');
    expect(failed).toMatchObject({ status: 'failed', outcome: 'failed', attempts: 2, assigned_agent: 'cy' });
    expect(failed.notes).toMatch(/lease of attempt 2 of 2 ran out/);
    expect(failed.completed_at).not.toBeNull();
    expect(failed.dispatch_log.map((entry: any) => [entry.agent, entry.outcome, entry.reason])).toEqual([
      ['ann', 'failed', 'lease_expired'],
      ['cy', 'failed', 'lease_expired'],
    ]);
  });

  it('a heartbeat in time keeps the item; a PATCH by the holder renews the lease too', async () => {
    const item = await submit({ type: 'keep_a' });
    await claim({ agent: 'ann', types: ['keep_a'], lease_s: 1 });
    for (let beat = 0; beat < 4; beat += 1) {
      await pass(500);
      const response = await call(t.app, 'POST', `/work/${item.id}/heartbeat`, { agent: 'ann' });
      expect(response.status).toBe(200);
      expect(Date.parse(response.body.lease_expires_at)).toBeGreaterThan(clock.now().getTime() + 500);
    }
    await pass(500);
    const noted = await call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'half way', agent: 'ann' });
    expect(noted.status).toBe(200);
    expect(Date.parse(noted.body.lease_expires_at)).toBeGreaterThan(clock.now().getTime() + 500);
    const done = await call(t.app, 'PATCH', `/work/${item.id}`, {
      status: 'completed',
      outcome: 'success',
      agent: 'ann',
    });
    expect(done.body).toMatchObject({ status: 'completed', lease_expires_at: null, attempts: 1 });
    expect(done.body.dispatch_log[0]).toMatchObject({ outcome: 'success', reason: 'completed' });
  });

  it('a heartbeat can set a new lease length; from another agent it is a 409 naming the holder', async () => {
    const item = await submit({ type: 'keep_b' });
    await claim({ agent: 'ann', types: ['keep_b'], lease_s: 10 });
    const longer = await call(t.app, 'POST', `/work/${item.id}/heartbeat`, { agent: 'ann', lease_s: 3_600 });
    expect(Date.parse(longer.body.lease_expires_at)).toBeGreaterThan(clock.now().getTime() + 3_590_000);
    const stranger = await call(t.app, 'POST', `/work/${item.id}/heartbeat`, { agent: 'mallory' });
    expect(stranger.status).toBe(409);
    expect(stranger.body.detail).toContain('dispatched to ann');
    expect(stranger.body.holder).toBe('ann');
    const move = await call(t.app, 'PATCH', `/work/${item.id}`, {
      status: 'completed',
      outcome: 'success',
      agent: 'mallory',
    });
    expect(move.status).toBe(409);
    expect(move.body.detail).toContain('dispatched to ann');
    expect(
      (await call(t.app, 'POST', `/work/00000000-0000-4000-8000-000000000000/heartbeat`, { agent: 'ann' })).status,
    ).toBe(404);
  });

  it('blocked pauses the lease; unblocking starts it again', async () => {
    const item = await submit({ type: 'pause_a', retry_delay_s: 0 });
    await claim({ agent: 'ann', types: ['pause_a'], lease_s: 1 });
    const blocked = await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'blocked' });
    expect(blocked.body.lease_expires_at).toBeNull();
    await pass(2_000);
    expect(await get(item.id)).toMatchObject({ status: 'blocked', assigned_agent: 'ann' });
    const beat = await call(t.app, 'POST', `/work/${item.id}/heartbeat`, { agent: 'ann' });
    expect(beat.status).toBe(200);
    expect(beat.body.lease_expires_at).toBeNull();
    const resumed = await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'in_progress' });
    expect(Date.parse(resumed.body.lease_expires_at)).toBeGreaterThan(clock.now().getTime());
    const back = await waitFor(item.id, (current) => current.status === 'queued');
    expect(back.status).toBe('queued');
  });

  it('a heartbeat on an item with no lease to hold is a 409', async () => {
    const item = await submit({ type: 'nolease', agent: 'ann' });
    const done = await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'cancelled', outcome: 'cancelled' });
    expect(done.status).toBe(200);
    const beat = await call(t.app, 'POST', `/work/${item.id}/heartbeat`, { agent: 'ann' });
    expect(beat.status).toBe(409);
    expect(beat.body.current_status).toBe('cancelled');
  });

  it('release and reassign end the lease and say why in the dispatch log', async () => {
    const item = await submit({ type: 'reasons' });
    await claim({ agent: 'ann', types: ['reasons'], start: false });
    // The clock stands still unless moved: each change at its own instant, as in real time.
    clock.advance(1);
    const reassigned = await call(t.app, 'PATCH', `/work/${item.id}`, { agent: 'bo' });
    clock.advance(1);
    expect(reassigned.body).toMatchObject({ assigned_agent: 'bo', lease_expires_at: null });
    const released = await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'queued' });
    expect(released.body.dispatch_log.map((entry: any) => [entry.agent, entry.outcome, entry.reason])).toEqual([
      ['ann', 'cancelled', 'reassigned'],
      ['bo', 'cancelled', 'released'],
    ]);
  });
});
