import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAILING_FOR_MS, RETRY_SCHEDULE_MS } from '../../src/webhooks/index.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type HookApp, type Receiver, admin, createEndpoint, startHookApp, startReceiver } from './support.js';

// Failing receivers on both stores, the clock moved by hand: retries at the schedule's times
// (and at Retry-After), given up after the last; a receiver that hangs past the (shortened)
// timeout; 410 disables the endpoint and writes webhook.disabled; a redirect is a failure, never
// followed; days of failure disable it too; redeliver keeps the webhook-id; recover requeues.

const TIMEOUT_MS = 300;

describe.each(await storesUnderTest())('webhook retries on %s', (kind) => {
  let app: HookApp;
  let receiver: Receiver;
  let elsewhere: Receiver;
  const clock = createTestClock();
  const made: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    elsewhere = await startReceiver();
    app = await startHookApp(kind, clock, TIMEOUT_MS);
  });
  beforeEach(async () => {
    for (const id of made.splice(0)) await call(app.t.app, 'DELETE', `/webhooks/${id}`, undefined, admin);
    receiver.answers.length = 0;
  });
  afterAll(async () => {
    await app?.t.close();
    await receiver?.close();
    await elsewhere?.close();
  });

  async function endpoint(query: string, events = ['webhook.test']) {
    const created = await createEndpoint(app, { url: `${receiver.url}?${query}`, events });
    made.push(created.id);
    return created;
  }
  const queueTest = async (id: string) => {
    const queued = await call(app.t.app, 'POST', `/webhooks/${id}/test`, undefined, admin);
    expect(queued.status, queued.text).toBe(202);
    return queued.body as { id: string };
  };
  const deliveries = async (id: string) =>
    (await call(app.t.app, 'GET', `/webhooks/${id}/deliveries`, undefined, admin)).body as any[];
  const hits = (query: string) => receiver.received.filter((r) => r.path.endsWith(`?${query}`));

  it('500 then 200: retried 5 s later, and not before', async () => {
    const { id } = await endpoint('flaky');
    receiver.answers.push({ status: 500, body: 'x'.repeat(3000) });
    const queued = await queueTest(id);
    await app.deliver();
    const [first] = await deliveries(id);
    expect(first).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(first.attempts[0]).toMatchObject({ status_code: 500, error: null });
    expect(first.attempts[0].response_body).toHaveLength(1024);
    expect(Date.parse(first.next_attempt_at) - clock.now().getTime()).toBe(RETRY_SCHEDULE_MS[0]);
    clock.advance(RETRY_SCHEDULE_MS[0]! - 1);
    expect(await app.deliver()).toBe(0);
    clock.advance(1);
    expect(await app.deliver()).toBe(1);
    const [done] = await deliveries(id);
    expect(done).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    expect(hits('flaky').map((r) => r.headers['webhook-id'])).toEqual([queued.id, queued.id]);
    const shown = await call(app.t.app, 'GET', `/webhooks/${id}`, undefined, admin);
    expect(shown.body).toMatchObject({ failing_since: null, pending: 0, oldest_pending_at: null });
  });

  it('every failure: retried at each step of the schedule, then failed; a later delivery waits its turn', async () => {
    const { id } = await endpoint('down');
    for (let i = 0; i < 20; i += 1) receiver.answers.push({ status: 503 });
    const first = await queueTest(id);
    const second = await queueTest(id);
    await app.deliver();
    for (const step of RETRY_SCHEDULE_MS) {
      const [, head] = await deliveries(id);
      expect(head.id).toBe(first.id);
      expect(Date.parse(head.next_attempt_at) - clock.now().getTime()).toBe(step);
      clock.advance(step);
      await app.deliver();
    }
    const [later, given] = await deliveries(id);
    expect(given).toMatchObject({
      id: first.id,
      status: 'failed',
      attempt_count: RETRY_SCHEDULE_MS.length + 1,
      next_attempt_at: null,
    });
    // The second went only once the first was given up.
    expect(later).toMatchObject({ id: second.id, attempt_count: 1 });
    expect(hits('down').map((r) => r.headers['webhook-id'])).toEqual([
      ...Array(RETRY_SCHEDULE_MS.length + 1).fill(first.id),
      second.id,
    ]);
  });

  it('Retry-After is honoured, in seconds and as a date, capped', async () => {
    const { id } = await endpoint('later');
    receiver.answers.push({ status: 429, headers: { 'retry-after': '120' } });
    await queueTest(id);
    await app.deliver();
    let [row] = await deliveries(id);
    expect(Date.parse(row.next_attempt_at) - clock.now().getTime()).toBe(120_000);
    clock.advance(120_000);
    receiver.answers.push({ status: 503, headers: { 'retry-after': '999999' } });
    await app.deliver();
    [row] = await deliveries(id);
    expect(Date.parse(row.next_attempt_at) - clock.now().getTime()).toBe(10 * 3_600_000);
  });

  it('a receiver that never answers fails at the timeout and is retried', async () => {
    const { id } = await endpoint('hang');
    receiver.answers.push({ hang: true });
    await queueTest(id);
    await app.deliver();
    const [row] = await deliveries(id);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(row.attempts[0]).toMatchObject({ status_code: null });
    expect(row.attempts[0].error).toContain(`${TIMEOUT_MS} ms`);
  });

  it('a redirect is a failure and is not followed', async () => {
    const { id } = await endpoint('moved');
    receiver.answers.push({ status: 302, headers: { location: elsewhere.url } });
    await queueTest(id);
    await app.deliver();
    const [row] = await deliveries(id);
    expect(row).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(row.attempts[0]).toMatchObject({ status_code: 302 });
    expect(row.attempts[0].error).toContain('not followed');
    expect(elsewhere.received).toHaveLength(0);
  });

  it('410 disables the endpoint at once, and webhook.disabled reaches the endpoints that listen for it', async () => {
    const watcher = await endpoint('watcher', ['webhook.disabled']);
    const { id } = await endpoint('gone');
    receiver.answers.push({ status: 410 });
    await queueTest(id);
    await queueTest(id);
    await app.deliver();
    const shown = await call(app.t.app, 'GET', `/webhooks/${id}`, undefined, admin);
    expect(shown.body).toMatchObject({ enabled: false, disabled_reason: 'gone', pending: 1 });
    expect(hits('gone')).toHaveLength(1);
    await app.deliver();
    const told = hits('watcher').map((r) => JSON.parse(r.body));
    expect(told).toMatchObject([{ type: 'webhook.disabled', data: { id, disabled_reason: 'gone' } }]);
    expect(watcher.id).not.toBe(id);
    // Turned on again, its waiting delivery goes.
    const on = await call(app.t.app, 'PATCH', `/webhooks/${id}`, { enabled: true }, admin);
    expect(on.body).toMatchObject({ enabled: true, disabled_reason: null });
    await app.deliver();
    expect(hits('gone')).toHaveLength(2);
  });

  it('an endpoint failing for days on end is disabled (failing)', async () => {
    const { id } = await endpoint('dead');
    for (let i = 0; i < 40; i += 1) receiver.answers.push({ status: 500 });
    await queueTest(id);
    await app.deliver();
    const since = clock.now().getTime();
    while (clock.now().getTime() - since < FAILING_FOR_MS + 24 * 3_600_000) {
      clock.advance(3_600_000);
      await app.deliver();
      const shown = await call(app.t.app, 'GET', `/webhooks/${id}`, undefined, admin);
      if (!shown.body.enabled) break;
      if (shown.body.pending === 0) await queueTest(id);
    }
    const shown = await call(app.t.app, 'GET', `/webhooks/${id}`, undefined, admin);
    expect(shown.body).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    expect(clock.now().getTime() - Date.parse(shown.body.failing_since)).toBeGreaterThanOrEqual(FAILING_FOR_MS);
  });

  it('redeliver sends again with the same webhook-id; recover requeues the failed ones since a time', async () => {
    const { id } = await endpoint('again');
    const queued = await queueTest(id);
    await app.deliver();
    const redone = await call(app.t.app, 'POST', `/webhooks/${id}/deliveries/${queued.id}/redeliver`, undefined, admin);
    expect(redone.status, redone.text).toBe(202);
    await app.deliver();
    expect(hits('again').map((r) => r.headers['webhook-id'])).toEqual([queued.id, queued.id]);
    const missing = await call(app.t.app, 'POST', `/webhooks/${id}/deliveries/msg_nope/redeliver`, undefined, admin);
    expect(missing.status).toBe(404);

    for (let i = 0; i < 8; i += 1) receiver.answers.push({ status: 500 });
    const lost = await queueTest(id);
    await app.deliver();
    for (const step of RETRY_SCHEDULE_MS) {
      clock.advance(step);
      await app.deliver();
    }
    expect((await deliveries(id))[0]).toMatchObject({ id: lost.id, status: 'failed' });
    const recovered = await call(
      app.t.app,
      'POST',
      `/webhooks/${id}/recover`,
      { since: new Date(0).toISOString() },
      admin,
    );
    expect(recovered.body).toEqual({ requeued: 1 });
    await app.deliver();
    expect((await deliveries(id))[0]).toMatchObject({ id: lost.id, status: 'succeeded' });
  });

  it('deliveries past the retention are purged; pending ones are kept', async () => {
    const { id } = await endpoint('old');
    await queueTest(id);
    await app.deliver();
    receiver.answers.push({ status: 500 });
    await queueTest(id);
    await app.deliver();
    clock.advance(31 * 24 * 3_600_000);
    await app.webhooks().purge();
    expect((await deliveries(id)).map((d) => d.status)).toEqual(['pending']);
  });
});
