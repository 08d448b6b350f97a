import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { createJumpingClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type Scrape, parsePrometheus } from '../support/prometheus.js';
import { connectSse } from '../support/sse.js';

// GET /metrics on the work service moves as the desk works: every scrape is read with a strict
// text-format parser, and each step checks that the right series moved by the right amount.

describe.each(await storesUnderTest())('work metrics on %s', (kind) => {
  let t: TestApp;
  // Real time, so the sweeper's timer and long polls run; ages and leases jump instead of sleeping.
  const clock = createJumpingClock();
  beforeAll(async () => {
    t = await startWorkApp(kind, {}, { now: clock.now });
  });
  afterAll(() => t.close());

  const scrape = async (): Promise<Scrape> => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheus(response.body);
  };
  /** Scrapes until `done` holds or the time is up; the last scrape either way. */
  const scrapeUntil = async (done: (m: Scrape) => boolean, ms = 5_000): Promise<Scrape> => {
    let metrics = await scrape();
    await vi
      .waitFor(
        async () => {
          metrics = await scrape();
          if (!done(metrics)) throw new Error('not yet');
        },
        { timeout: ms, interval: 50 },
      )
      .catch(() => undefined);
    return metrics;
  };
  const submit = async (type: string, extra: Record<string, unknown> = {}) => {
    const response = await call(t.app, 'POST', '/work', { type, description: 'counted by the metrics', ...extra });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const claim = async (type: string, extra: Record<string, unknown> = {}) => {
    const response = await call(t.app, 'POST', '/work/claim', { agent: 'ada', types: [type], ...extra });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const patch = async (id: string, body: Record<string, unknown>) => {
    const response = await call(t.app, 'PATCH', `/work/${id}`, { agent: 'ada', ...body });
    expect(response.status, response.text).toBe(200);
  };
  const items = (m: Scrape, status: string, type: string) => m.value('agentdesk_work_items', { status, type });
  const requests = (m: Scrape, method: string, route: string, status: string) =>
    m.value('agentdesk_http_request_duration_seconds_count', { method, route, status_code: status });

  it('submit, claim, complete and fail move the item gauges, the counters and the request histogram', async () => {
    const type = `metrics_flow_${kind}`;
    const before = await scrape();
    expect(before.families.get('agentdesk_work_items')?.type).toBe('gauge');
    expect(before.families.get('agentdesk_work_claims_total')?.type).toBe('counter');

    const [first, second] = [await submit(type), await submit(type), await submit(type)];
    let m = await scrape();
    expect(items(m, 'queued', type)).toBe(3);
    // Every status of a type that has items is a series, zeros included.
    expect(m.samples('agentdesk_work_items').filter((s) => s.labels.type === type)).toHaveLength(7);
    expect(requests(m, 'POST', '/work', '201') - requests(before, 'POST', '/work', '201')).toBe(3);
    expect(m.value('agentdesk_work_oldest_queued_age_seconds', { type })).toBeGreaterThanOrEqual(0);

    const claimed = await claim(type);
    expect(claimed.id).toBe(first.id);
    m = await scrape();
    expect(
      m.value('agentdesk_work_claims_total', { type }) - before.value('agentdesk_work_claims_total', { type }),
    ).toBe(1);
    expect(items(m, 'queued', type)).toBe(2);
    expect(items(m, 'in_progress', type)).toBe(1);
    expect(requests(m, 'POST', '/work/claim', '200') - requests(before, 'POST', '/work/claim', '200')).toBe(1);

    await patch(claimed.id, { status: 'completed', outcome: 'success' });
    m = await scrape();
    expect(m.value('agentdesk_work_completions_total', { type })).toBe(1);
    expect(items(m, 'in_progress', type)).toBe(0);
    expect(items(m, 'completed', type)).toBe(1);
    // The route pattern, never the URL with the id in it.
    expect(requests(m, 'PATCH', '/work/:id', '200')).toBeGreaterThanOrEqual(1);
    expect(
      m.samples('agentdesk_http_request_duration_seconds_count').some((s) => s.labels.route?.includes(claimed.id)),
    ).toBe(false);

    const next = await claim(type);
    expect(next.id).toBe(second.id);
    await patch(next.id, { status: 'failed', outcome: 'failed' });
    m = await scrape();
    expect(m.value('agentdesk_work_claims_total', { type })).toBe(2);
    expect(m.value('agentdesk_work_failures_total', { type })).toBe(1);
    expect(m.value('agentdesk_work_completions_total', { type })).toBe(1);
    expect(items(m, 'failed', type)).toBe(1);
    expect(items(m, 'queued', type)).toBe(1);
  });

  it('the oldest queued item by type is its age in seconds, and a type with nothing queued has no series', async () => {
    const type = `metrics_age_${kind}`;
    await submit(type);
    clock.advance(1_100);
    await submit(type);
    let m = await scrape();
    const age = m.value('agentdesk_work_oldest_queued_age_seconds', { type });
    expect(age).toBeGreaterThanOrEqual(1);
    expect(age).toBeLessThan(30);
    await claim(type);
    await claim(type);
    m = await scrape();
    expect(m.samples('agentdesk_work_oldest_queued_age_seconds').some((s) => s.labels.type === type)).toBe(false);
  });

  it('a lease that runs out counts as an expiry: requeued while attempts are left, then failed', async () => {
    const type = `metrics_lease_${kind}`;
    await submit(type, { retry_delay_s: 0, max_attempts: 2 });
    await claim(type, { lease_s: 1 });
    clock.advance(1_000);
    let m = await scrapeUntil(
      (s) => s.value('agentdesk_work_lease_expiries_total', { type, outcome: 'requeued' }) === 1,
    );
    expect(m.value('agentdesk_work_lease_expiries_total', { type, outcome: 'requeued' })).toBe(1);
    expect(items(m, 'queued', type)).toBe(1);

    await claim(type, { lease_s: 1 });
    clock.advance(1_000);
    m = await scrapeUntil((s) => s.value('agentdesk_work_lease_expiries_total', { type, outcome: 'failed' }) === 1);
    expect(m.value('agentdesk_work_lease_expiries_total', { type, outcome: 'failed' })).toBe(1);
    expect(m.value('agentdesk_work_lease_expiries_total', { type, outcome: 'requeued' })).toBe(1);
    expect(m.value('agentdesk_work_failures_total', { type })).toBe(1);
    expect(m.value('agentdesk_work_claims_total', { type })).toBe(2);
    expect(items(m, 'failed', type)).toBe(1);
  });

  it('a long poll counts as waiting until an item arrives for it', async () => {
    const type = `metrics_wait_${kind}`;
    const waiting = call(t.app, 'POST', '/work/claim', { agent: 'ada', types: [type], wait_s: 10 });
    let m = await scrapeUntil((s) => s.value('agentdesk_work_claims_waiting') === 1);
    expect(m.value('agentdesk_work_claims_waiting')).toBe(1);
    await submit(type);
    expect((await waiting).status).toBe(200);
    m = await scrape();
    expect(m.value('agentdesk_work_claims_waiting')).toBe(0);
    expect(m.value('agentdesk_work_claims_total', { type })).toBe(1);
  });

  it('SSE clients are counted while connected; the event-log lag is what the slowest client has not been sent', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    expect((await scrape()).value('agentdesk_events_clients')).toBe(0);
    expect((await scrape()).value('agentdesk_events_lag_events')).toBe(0);

    const reader = await connectSse(`${base}/events`);
    // Reads nothing: once its socket is full, the events written after stay unsent.
    const stuck = await connectSse(`${base}/events`, {}, { paused: true });
    let m = await scrapeUntil((s) => s.value('agentdesk_events_clients') === 2);
    expect(m.value('agentdesk_events_clients')).toBe(2);

    const type = `metrics_sse_${kind}`;
    // About 9.6 MB (two bytes a character), more than the sockets hold.
    const big = { blob: 'é'.repeat(30_000) };
    const count = 160;
    for (let i = 0; i < count; i += 1) await submit(type, { payload: big });
    await reader.waitFor((events) => events.filter((e) => e.event === 'work.created').length === count, 20_000);
    m = await scrapeUntil((s) => s.value('agentdesk_events_lag_events') > 0);
    const lag = m.value('agentdesk_events_lag_events');
    expect(lag).toBeGreaterThan(0);
    expect(lag).toBeLessThanOrEqual(count);

    stuck.close();
    m = await scrapeUntil(
      (s) => s.value('agentdesk_events_clients') === 1 && s.value('agentdesk_events_lag_events') === 0,
    );
    expect(m.value('agentdesk_events_clients')).toBe(1);
    // The reader has everything: nothing trails.
    expect(m.value('agentdesk_events_lag_events')).toBe(0);
    reader.close();
    m = await scrapeUntil((s) => s.value('agentdesk_events_clients') === 0);
    expect(m.value('agentdesk_events_clients')).toBe(0);
  }, 60_000);

  it('the database: transaction durations by outcome, and the pool (PostgreSQL) or the group commit (SQLite)', async () => {
    const before = await scrape();
    const committed = (m: Scrape) =>
      m.value('agentdesk_db_transaction_duration_seconds_count', { outcome: 'committed' });
    // With an Idempotency-Key a submit is a transaction on both stores (on PostgreSQL a plain
    // submit is one statement, which the runner never sees).
    const response = await call(
      t.app,
      'POST',
      '/work',
      { type: `metrics_db_${kind}`, description: 'd' },
      { 'idempotency-key': `k-${kind}` },
    );
    expect(response.status, response.text).toBe(201);
    const m = await scrape();
    expect(committed(m) - committed(before)).toBeGreaterThanOrEqual(1);
    expect(m.families.get('agentdesk_db_transaction_duration_seconds')?.type).toBe('histogram');
    if (kind === 'sqlite') {
      // Every committed transaction was a member of some batch; a batch holds one or more.
      const batches = m.value('agentdesk_db_group_commit_batch_size_count');
      const members = m.value('agentdesk_db_group_commit_batch_size_sum');
      expect(members).toBeGreaterThanOrEqual(committed(m));
      expect(batches).toBeGreaterThanOrEqual(1);
      expect(batches).toBeLessThanOrEqual(members);
      expect(m.families.has('agentdesk_db_pool_waiting_clients')).toBe(false);
      // The WAL: its file's size and bound (SQLITE_WAL_MAX_MB, 256 by default), and the
      // checkpointer's families (their counts move with the thread's timer).
      expect(m.value('agentdesk_db_sqlite_wal_bound_bytes')).toBe(256 * 1024 * 1024);
      expect(m.value('agentdesk_db_sqlite_wal_bytes')).toBeGreaterThan(0);
      expect(m.families.get('agentdesk_db_sqlite_checkpoints_total')?.type).toBe('counter');
      expect(m.families.get('agentdesk_db_sqlite_write_hold_seconds')?.type).toBe('histogram');
      expect(m.families.get('agentdesk_db_sqlite_checkpoint_pages_left')?.type).toBe('gauge');
    } else {
      expect(m.families.has('agentdesk_db_sqlite_wal_bytes')).toBe(false);
      expect(m.families.has('agentdesk_db_group_commit_batch_size')).toBe(false);
      expect(m.value('agentdesk_db_pool_max_connections')).toBe(5);
      expect(m.sum('agentdesk_db_pool_connections')).toBeGreaterThanOrEqual(1);
      // The scrape's own queries may be waiting for a connection being opened: present, not zero.
      expect(m.families.get('agentdesk_db_pool_waiting_clients')?.samples).toHaveLength(1);
    }
    if (kind === 'sqlite') {
      // Concurrent transactions share commits: 20 of them, fewer batches than transactions.
      const batches = (x: Scrape) => x.value('agentdesk_db_group_commit_batch_size_count');
      const members = (x: Scrape) => x.value('agentdesk_db_group_commit_batch_size_sum');
      const burst = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(
            t.app,
            'POST',
            '/work',
            { type: 'metrics_burst', description: 'd' },
            { 'idempotency-key': `burst-${i}` },
          ),
        ),
      );
      expect(burst.map((r) => r.status)).toEqual(Array(20).fill(201));
      const after = await scrape();
      expect(members(after) - members(m)).toBeGreaterThanOrEqual(20);
      expect(batches(after) - batches(m)).toBeLessThan(20);
    }
    // The process's own metrics follow the app's.
    expect(m.families.get('process_resident_memory_bytes')?.type).toBe('gauge');
  });
});

describe.each(await storesUnderTest())('work metrics while the database is away on %s', (kind) => {
  it('a scrape still answers 200: the gauges that need the database are left out, the rest are there', async () => {
    const t = await startWorkApp(kind);
    try {
      expect((await call(t.app, 'POST', '/work', { type: 'away', description: 'd' })).status).toBe(201);
      await t.database.close();
      const response = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      const m = parsePrometheus(response.body);
      expect(m.samples('agentdesk_work_items')).toEqual([]);
      expect(m.samples('agentdesk_work_oldest_queued_age_seconds')).toEqual([]);
      expect(
        m.value('agentdesk_http_request_duration_seconds_count', {
          method: 'POST',
          route: '/work',
          status_code: '201',
        }),
      ).toBe(1);
      expect(t.logs.text()).toContain('metrics: item counts unavailable');
    } finally {
      await t.close();
    }
  });
});
