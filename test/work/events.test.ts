import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkApp } from '../../src/services/work.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { type TestApp, captureLogs, startWorkApp, testConfig } from '../support/apps.js';
import { createTestClock } from '../support/clock.js';
import { openTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type SseClient, connectSse } from '../support/sse.js';

async function listen(app: HttpApp): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describe.each(await storesUnderTest())('GET /events on %s', (kind) => {
  let t: TestApp;
  let base: string;
  const clients: SseClient[] = [];
  const open = async (headers: Record<string, string> = {}) => {
    const client = await connectSse(`${base}/events`, headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startWorkApp(kind);
    base = await listen(t.app);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await t.close();
  });

  it('streams every kind of change with increasing ids and the resource as data', async () => {
    const stream = await open();
    expect(stream.status).toBe(200);
    const { body: project } = await call(t.app, 'POST', '/projects', { name: 'Events' });
    await call(t.app, 'PATCH', `/projects/${project.id}`, { external_ref: 'EV-1' });
    const { body: item } = await call(t.app, 'POST', '/work', {
      type: 't',
      description: 'watch me',
      project_id: project.id,
    });
    await call(t.app, 'PATCH', `/work/${item.id}`, { agent: 'ann' });
    await call(t.app, 'DELETE', `/work/${item.id}`);

    const events = await stream.waitFor((all) => all.length >= 5);
    expect(events.map((e) => e.event)).toEqual([
      'project.created',
      'project.updated',
      'work.created',
      'work.updated',
      'work.deleted',
    ]);
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(5);
    expect(JSON.parse(events[1]!.data)).toMatchObject({ id: project.id, external_ref: 'EV-1' });
    expect(JSON.parse(events[2]!.data)).toMatchObject({ id: item.id, description: 'watch me', status: 'queued' });
    expect(JSON.parse(events[3]!.data)).toMatchObject({ id: item.id, status: 'dispatched', assigned_agent: 'ann' });
    expect(JSON.parse(events[3]!.data)).not.toHaveProperty('dispatch_log');
    expect(JSON.parse(events[4]!.data)).toEqual({ id: item.id, actor: { name: 'anonymous', role: 'admin' } });
  });

  it('a refused or empty write emits nothing', async () => {
    const stream = await open();
    const { body: item } = await call(t.app, 'POST', '/work', { type: 't', description: 'quiet' });
    await stream.waitFor((all) => all.length === 1);
    expect((await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'completed', outcome: 'success' })).status).toBe(
      409,
    );
    expect((await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'queued' })).status).toBe(200);
    await call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'marker' });
    const events = await stream.waitFor((all) => all.length === 2);
    expect(JSON.parse(events[1]!.data).notes).toBe('marker');
  });

  it('a client resuming with Last-Event-ID gets exactly what it missed, in order', async () => {
    const first = await open();
    const { body: item } = await call(t.app, 'POST', '/work', { type: 't', description: 'resume' });
    const [seen] = await first.waitFor((all) => all.length >= 1);
    first.close();

    await call(t.app, 'PATCH', `/work/${item.id}`, { agent: 'bob' });
    await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'in_progress' });
    await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'blocked' });

    const resumed = await open({ 'last-event-id': seen!.id! });
    const missed = await resumed.waitFor((all) => all.length >= 3);
    expect(missed.map((e) => JSON.parse(e.data).status)).toEqual(['dispatched', 'in_progress', 'blocked']);
    // Nothing repeated: the next change arrives right after what was missed.
    await call(t.app, 'PATCH', `/work/${item.id}`, { notes: 'after the resume' });
    const all = await resumed.waitFor((events) => events.length >= 4);
    expect(all).toHaveLength(4);
    expect(JSON.parse(all[3]!.data).notes).toBe('after the resume');
  });

  it('a client that drops before its first event still resumes from where it connected', async () => {
    const first = await open();
    // The stream's first line sets the id it starts from, without an event.
    await expect.poll(() => first.lastEventId()).toMatch(/^\d+$/);
    const startedAt = first.lastEventId();
    expect(startedAt).toMatch(/^\d+$/);
    expect(first.events).toEqual([]);
    first.close();
    const { body: item } = await call(t.app, 'POST', '/work', { type: 't', description: 'while away' });
    const resumed = await open({ 'last-event-id': startedAt! });
    const [missed] = await resumed.waitFor((all) => all.length >= 1);
    expect(JSON.parse(missed!.data).id).toBe(item.id);
  });

  it('a Last-Event-ID that is not an event id is a 422', async () => {
    const response = await call(t.app, 'GET', '/events', undefined, { 'last-event-id': 'yesterday' });
    expect(response.status).toBe(422);
    expect(response.body.errors[0].field).toBe('last-event-id');
  });
});

describe.each((await storesUnderTest()).filter((kind) => kind === 'postgres'))(
  'events on %s when commits overtake each other',
  (kind) => {
    let t: TestApp;
    let base: string;
    let slow: pg.Client;
    let other: pg.Client;
    const streams: SseClient[] = [];
    const open = async () => {
      const stream = await connectSse(`${base}/events`);
      streams.push(stream);
      // Subscribed, with its starting point read, before the test writes anything: the stream's
      // first line names that point.
      await expect.poll(() => stream.lastEventId()).not.toBeNull();
      return stream;
    };
    /**
     * Makes the hub deliver `times` more times and returns once it has: each delivery also looks at
     * the gap. A client that subscribes above the gap receives each new item at once; the held
     * stream subscribed first, so each pass reads it before the canary.
     */
    async function deliverPastTheGap(times = 1): Promise<void> {
      const canary = await open();
      for (let n = 1; n <= times; n += 1) {
        await call(t.app, 'POST', '/work', { type: 't', description: `canary ${n}` });
        await canary.waitFor((all) => all.length >= n, 3_000);
      }
    }

    /** A transaction that takes an event id and holds it, uncommitted, as a stalled instance would. */
    async function holdEventId(): Promise<number> {
      await slow.query('BEGIN');
      const held = await slow.query(
        'INSERT INTO events (type, data, created_at) VALUES (\'work.deleted\', \'{"id":"held"}\', $1) RETURNING id',
        [new Date().toISOString()],
      );
      return Number(held.rows[0].id);
    }

    beforeAll(async () => {
      t = await startWorkApp(kind);
      base = await listen(t.app);
      slow = new pg.Client({ connectionString: t.testDatabase.config.url });
      other = new pg.Client({ connectionString: t.testDatabase.config.url });
      await Promise.all([slow.connect(), other.connect()]);
    });
    afterAll(async () => {
      for (const stream of streams) stream.close();
      await slow.end();
      await other.end();
      await t.close();
    });

    it('an event that commits after a later id is still delivered, and in id order', async () => {
      const stream = await open();
      const held = await holdEventId();
      const { body: item } = await call(t.app, 'POST', '/work', { type: 't', description: 'overtaking' });
      await deliverPastTheGap();
      expect(stream.events).toEqual([]);
      await slow.query('COMMIT');
      const events = (await stream.waitFor((all) => all.length >= 3, 3_000)).slice(0, 2);
      expect(events.map((e) => Number(e.id))).toEqual([held, held + 1]);
      expect(JSON.parse(events[1]!.data).id).toBe(item.id);
    });

    it('a later event stamped by a clock that runs behind does not make the stream skip the held one', async () => {
      const stream = await open();
      const held = await holdEventId();
      // Another instance whose clock is a minute behind this one's commits the next event.
      const lagging = new Date(Date.now() - 60_000).toISOString();
      await other.query(
        'INSERT INTO events (type, data, created_at) VALUES (\'work.deleted\', \'{"id":"lagging"}\', $1)',
        [lagging],
      );
      await deliverPastTheGap();
      expect(stream.events).toEqual([]);
      await slow.query('COMMIT');
      const events = (await stream.waitFor((all) => all.length >= 3, 3_000)).slice(0, 2);
      expect(events.map((e) => Number(e.id))).toEqual([held, held + 1]);
      expect(events.map((e) => JSON.parse(e.data).id)).toEqual(['held', 'lagging']);
    });

    // The gap rule has no clock: however many times the hub looks, the open transaction holds it.
    it('a transaction that stays open across many deliveries still has its event delivered, first', async () => {
      const stream = await open();
      const held = await holdEventId();
      const { body: item } = await call(t.app, 'POST', '/work', { type: 't', description: 'behind a stalled one' });
      await deliverPastTheGap(10);
      expect(stream.events).toEqual([]);
      await slow.query('COMMIT');
      const events = await stream.waitFor((all) => all.length >= 12, 3_000);
      expect(events.map((e) => Number(e.id))).toEqual(Array.from({ length: 12 }, (_, n) => held + n));
      expect(JSON.parse(events[1]!.data).id).toBe(item.id);
    });

    it('an id whose transaction rolled back holds the stream only until that transaction ends', async () => {
      const stream = await open();
      await holdEventId();
      const { body: item } = await call(t.app, 'POST', '/work', { type: 't', description: 'after a rollback' });
      await deliverPastTheGap();
      expect(stream.events).toEqual([]);
      await slow.query('ROLLBACK');
      const [event] = await stream.waitFor((all) => all.length >= 1, 2_000);
      expect(JSON.parse(event!.data).id).toBe(item.id);
    });

    // A snapshot names every writing transaction of the cluster; only the log's writers can fill a gap.
    it('a long transaction that never writes the log does not hold the stream at a gap', async () => {
      const bystander = new pg.Client({ connectionString: t.testDatabase.config.url });
      await bystander.connect();
      try {
        await bystander.query('BEGIN');
        await bystander.query('SELECT pg_current_xact_id()');
        const stream = await open();
        await holdEventId();
        const { body: item } = await call(t.app, 'POST', '/work', { type: 't', description: 'beside a bystander' });
        await slow.query('ROLLBACK');
        const [event] = await stream.waitFor((all) => all.length >= 1, 3_000);
        expect(JSON.parse(event!.data).id).toBe(item.id);
      } finally {
        await bystander.query('ROLLBACK');
        await bystander.end();
      }
    });
  },
);

describe.each(await storesUnderTest())('events purged from the log on %s', (kind) => {
  it('a client resuming from before the purge gets a reset; one resuming from what is kept goes on', async () => {
    const t = await startWorkApp(kind);
    try {
      const base = await listen(t.app);
      const made: string[] = [];
      for (let n = 0; n < 6; n += 1) {
        made.push((await call(t.app, 'POST', '/work', { type: 't', description: `purge ${n}` })).body.id);
      }
      // As the retention purge would: the oldest events go.
      await t.database.kysely.deleteFrom('events').where('id', '<=', 4).execute();
      const stale = await connectSse(`${base}/events`, { 'last-event-id': '1' });
      const [reset] = await stale.waitFor((all) => all.length >= 1, 2_000);
      expect(reset).toMatchObject({ event: 'reset', id: '6' });
      expect(JSON.parse(reset!.data)).toEqual({ last_event_id: 6 });
      const next = (await call(t.app, 'POST', '/work', { type: 't', description: 'after the reset' })).body.id;
      const after = await stale.waitFor((all) => all.length >= 2, 2_000);
      expect(JSON.parse(after[1]!.data).id).toBe(next);
      stale.close();
      // Resuming from the last purged id misses nothing: the kept events follow.
      const current = await connectSse(`${base}/events`, { 'last-event-id': '4' });
      const kept = await current.waitFor((all) => all.length >= 3, 2_000);
      expect(kept.map((e) => JSON.parse(e.data).id)).toEqual([...made.slice(4), next]);
      current.close();
    } finally {
      await t.close();
    }
  });
});

describe.each(await storesUnderTest())('the event log keeps EVENTS_RETENTION_DAYS on %s', (kind) => {
  it('events older than that go in batches, newer ones stay; a client resuming from a purged one gets a reset', async () => {
    const clock = createTestClock();
    let purge: () => Promise<number> = async () => 0;
    const t = await startWorkApp(
      kind,
      { EVENTS_RETENTION_DAYS: '2' },
      { now: clock.now, onEventsPurge: (run) => (purge = run) },
    );
    try {
      // More than one batch of old events, so the pass must go on past its first delete.
      const OLD = 1_100;
      for (let n = 0; n < OLD; n += 1) {
        const made = await call(t.app, 'POST', '/work', { type: 't', description: `old ${n}` });
        expect(made.status).toBe(201);
      }
      clock.advance(36 * 60 * 60 * 1000);
      const kept: string[] = [];
      for (let n = 0; n < 3; n += 1) {
        kept.push((await call(t.app, 'POST', '/work', { type: 't', description: `kept ${n}` })).body.id);
      }
      // A day and a half on: nothing is two days old yet.
      expect(await purge()).toBe(0);
      clock.advance(24 * 60 * 60 * 1000);
      expect(await purge()).toBe(OLD);
      expect(await purge()).toBe(0);

      const base = await listen(t.app);
      const stale = await connectSse(`${base}/events`, { 'last-event-id': '1' });
      const [reset] = await stale.waitFor((all) => all.length >= 1, 5_000);
      expect(reset!.event).toBe('reset');
      stale.close();
      // The kept events follow for a client that had seen the last purged one.
      const stream = await connectSse(`${base}/events`, { 'last-event-id': String(OLD) });
      const events = await stream.waitFor((all) => all.length >= 3, 5_000);
      expect(events.map((e) => JSON.parse(e.data).id)).toEqual(kept);
      stream.close();
    } finally {
      await t.close();
    }
  }, 120_000);
});

describe.each((await storesUnderTest()).filter((kind) => kind === 'postgres'))(
  'events across instances on %s',
  (kind) => {
    it('an event made on one instance reaches the clients of another', async () => {
      const a = await startWorkApp(kind);
      const database = await openTestDatabase(a.testDatabase);
      const b = await buildWorkApp({
        config: testConfig(a.testDatabase),
        database,
        logger: captureLogs('warn').logger,
      });
      try {
        const stream = await connectSse(`${await listen(a.app)}/events`);
        const { body: item } = await call(b, 'POST', '/work', { type: 't', description: 'made on b' });
        const events = await stream.waitFor((all) => all.length >= 1, 1_500);
        expect(JSON.parse(events[0]!.data).id).toBe(item.id);
        stream.close();
      } finally {
        await b.close();
        await database.close();
        await a.close();
      }
    });
  },
);
