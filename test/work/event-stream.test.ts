import { request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { createHttpApp } from '../../src/shared/http/app.js';
import { type EventHub, type EventHubOptions, createEventHub, registerEventRoutes } from '../../src/work/events/hub.js';
import { createWorkStore } from '../../src/work/store/index.js';
import {
  CSRF_PARAMETER,
  DOCUMENT_SECURITY,
  SECURITY_SCHEMES,
  documentCsrf,
  installAccessControl,
} from '../../src/auth/access-hook.js';
import { createAuthParts } from '../../src/auth/setup.js';
import { captureLogs, testConfig } from '../support/apps.js';
import {
  type StoreKind,
  type TestDatabase,
  createTestDatabase,
  openTestDatabase,
  storesUnderTest,
} from '../support/databases.js';
import { type SseClient, connectSse } from '../support/sse.js';

// The event stream under conditions a happy client never meets: a database that fails the first
// look-up, a client that leaves before it is subscribed, a client that stops reading, and a
// Last-Event-ID from a log that has since been reset.

interface StreamApp {
  app: HttpApp;
  hub: EventHub;
  database: Database;
  testDatabase: TestDatabase;
  base: string;
  /** The server's side of every connection it accepted. */
  sockets: Set<Socket>;
  /** First look-ups of new clients: begun, and answered or failed. */
  lookups: { begun: number; ended: number };
  /** Commits one event, as a write of the work service would, and returns its id. */
  append(data: { id: string } & Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

/** The event stream wired as buildWorkApp (src/services/work.ts) does, with the hub in reach. */
async function startStreamApp(kind: StoreKind, options: EventHubOptions = {}): Promise<StreamApp> {
  const testDatabase = await createTestDatabase(kind);
  const database = await openTestDatabase(testDatabase);
  const { logger } = captureLogs('warn');
  const config = testConfig(testDatabase);
  const auth = await createAuthParts(config, database, logger);
  const app = await createHttpApp({
    logger,
    requests: config.requests,
    authenticated: (request) => request.principal !== null,
    installAccess: async (target) => void (await installAccessControl(target, auth.access)),
    document: {
      securitySchemes: SECURITY_SCHEMES,
      security: DOCUMENT_SECURITY,
      parameters: { csrf: CSRF_PARAMETER },
      finish: documentCsrf,
    },
    bodyLimit: 1024 * 1024,
    title: 't',
    description: 't',
    version: '0',
  });
  app.addHook('onClose', () => auth.authenticator.close());
  const hub = await createEventHub(database, logger, options);
  const store = createWorkStore(database, DEPENDENT_NOTES, () => hub.committed());
  const lookups = { begun: 0, ended: 0 };
  registerEventRoutes(app, {
    ...hub,
    async locate(lastEventId) {
      lookups.begun += 1;
      try {
        return await hub.locate(lastEventId);
      } finally {
        lookups.ended += 1;
      }
    },
  });
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    app,
    hub,
    database,
    testDatabase,
    base,
    sockets,
    lookups,
    append: (data) =>
      store.transaction((tx) => tx.appendEvent('work.updated', JSON.stringify(data), new Date().toISOString())),
    async close() {
      await app.close();
      await database.close().catch(() => undefined);
      await testDatabase.destroy();
    },
  };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error('condition not met in time');
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

/** One turn of the event loop: what was due after the awaited step has run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Keeps the first look-up of a new subscriber waiting until the returned function is called:
 * on PostgreSQL a lock on the event log, on SQLite a transaction holding the one connection.
 */
async function holdEventLog(s: StreamApp): Promise<() => Promise<void>> {
  if (s.testDatabase.kind === 'postgres') {
    const locker = new pg.Client({ connectionString: s.testDatabase.config.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
    return async () => {
      await locker.query('COMMIT');
      await locker.end();
    };
  }
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const transaction = s.database.transaction(async () => {
    started();
    await held;
  });
  await running;
  return async () => {
    release();
    await transaction;
  };
}

describe.each(await storesUnderTest())('the event stream under stress on %s', (kind) => {
  let s: StreamApp;
  const clients: SseClient[] = [];
  const open = async (headers: Record<string, string> = {}, options: { paused?: boolean } = {}) => {
    const client = await connectSse(`${s.base}/events`, headers, options);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    s = await startStreamApp(kind);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await s?.close();
  });

  it('a client that leaves while its first look-up waits is not kept as a subscriber', async () => {
    const begun = s.lookups.begun;
    const release = await holdEventLog(s);
    const leaving = request(`${s.base}/events`, { headers: { accept: 'text/event-stream' } });
    leaving.on('error', () => undefined);
    leaving.end();
    // The request is in, waiting on its look-up; the client gives up.
    await until(() => s.lookups.begun > begun);
    leaving.destroy();
    await until(() => s.sockets.size === 0);
    await release();
    // The look-up answers; the route goes on without waiting for anything else.
    await until(() => s.lookups.ended > begun);
    await turn();
    expect(s.hub.clients()).toBe(0);
  });

  it('a Last-Event-ID the log never reached is a reset, and the events that follow arrive', async () => {
    await s.append({ id: 'before the reset' });
    const stream = await open({ 'last-event-id': '999999' });
    const [reset] = await stream.waitFor((all) => all.length >= 1, 3_000);
    expect(reset!.event).toBe('reset');
    const head = Number(reset!.id);
    expect(head).toBeLessThan(999_999);
    const next = await s.append({ id: 'after the reset' });
    expect(next).toBe(head + 1);
    const events = await stream.waitFor((all) => all.length >= 2, 3_000);
    expect(events[1]).toMatchObject({ event: 'work.updated', id: String(next) });
    expect(JSON.parse(events[1]!.data).id).toBe('after the reset');
  });

  it('a Last-Event-ID the log has reached is no reset, even when it is the newest id', async () => {
    const first = await open();
    await s.append({ id: 'newest' });
    const [newest] = await first.waitFor((all) => all.length >= 1);
    first.close();
    const resumed = await open({ 'last-event-id': newest!.id! });
    await s.append({ id: 'next' });
    const [next] = await resumed.waitFor((all) => all.length >= 1);
    expect(next!.event).toBe('work.updated');
    expect(JSON.parse(next!.data).id).toBe('next');
  });

  it('a client that stops reading costs a bounded buffer, and catches up from the log when it reads again', async () => {
    const slow = await open({}, { paused: true });
    const fast = await open();
    const blob = 'x'.repeat(60_000);
    const count = 300;
    let largestBuffer = 0;
    const sample = setInterval(() => {
      for (const socket of s.sockets) largestBuffer = Math.max(largestBuffer, socket.writableLength);
    }, 10);
    try {
      for (let n = 0; n < count; n += 1) {
        await s.append({ id: `bulk ${n}`, blob });
      }
      // The reading client has everything: the writes are done and delivered.
      await fast.waitFor((all) => all.length >= count, 30_000);
    } finally {
      clearInterval(sample);
    }
    // And as the buffers stand now, with everything written.
    for (const socket of s.sockets) largestBuffer = Math.max(largestBuffer, socket.writableLength);
    // About 18 MB went to the reading client; the one that reads nothing holds little of it.
    expect(largestBuffer).toBeLessThan(2 * 1024 * 1024);
    slow.resume();
    const caughtUp = await slow.waitFor((all) => all.length >= count, 30_000);
    const ids = caughtUp.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(caughtUp.map((e) => e.data)).toEqual(fast.events.map((e) => e.data));
  }, 90_000);

  it('a first look-up that fails is a 503 problem+json, not a 200 stream that never speaks', async () => {
    // Last in this suite: the database is closed under the running app.
    await s.database.close();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 5_000);
    try {
      const response = await fetch(`${s.base}/events`, { signal: abort.signal });
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(((await response.json()) as { status: number }).status).toBe(503);
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  });
});

describe.each(await storesUnderTest())('a client that stops reading for too long on %s', (kind) => {
  it('is closed, and resuming with its Last-Event-ID it misses nothing', async () => {
    const s = await startStreamApp(kind, { stallMs: 300 });
    try {
      const slow = await connectSse(`${s.base}/events`, {}, { paused: true });
      // Two bytes a character: the log's reads are capped in bytes, SQLite counts characters.
      const blob = 'é'.repeat(30_000);
      const made: string[] = [];
      for (let n = 0; n < 150; n += 1) {
        made.push(`stall ${n}`);
        await s.append({ id: `stall ${n}`, blob });
      }
      // About 9 MB, more than the sockets hold: the server stops writing, then gives up on it.
      // (The client, reading nothing, cannot notice; a browser's next read would.)
      await until(() => s.hub.clients() === 0 && s.sockets.size === 0, 10_000);
      slow.close();
      const seen = slow.events.map((e) => JSON.parse(e.data).id);
      // Resumes as EventSource does: a stream the server drops again (a loaded host can make
      // even a reading client fall behind the short stall bound) is reopened from its last id.
      const received = [...seen];
      let lastId = slow.lastEventId() ?? '0';
      const deadline = Date.now() + 45_000;
      while (received.length < made.length && Date.now() < deadline) {
        const resumed = await connectSse(`${s.base}/events`, { 'last-event-id': lastId });
        await resumed
          .waitFor(
            (all) => received.length + all.length >= made.length || resumed.ended(),
            Math.max(1, deadline - Date.now()),
          )
          .catch(() => undefined);
        resumed.close();
        received.push(...resumed.events.map((e) => JSON.parse(e.data).id));
        lastId = resumed.lastEventId() ?? lastId;
      }
      expect(received).toEqual(made);
    } finally {
      await s.close();
    }
  }, 90_000);
});
