import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { type Answer, fetchJson, pooled } from '../support/fetch-json.js';
import { waitFor } from '../support/mail.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { type Receiver, startReceiver } from '../webhooks/support.js';
import { SECRET_KEY } from '../support/intake.js';

// Webhooks across crashes and instances, with real processes and a real receiver: kill -9 in a
// burst of events, then a restart, delivers every committed event at least once (a duplicate
// with its webhook-id) and none that did not commit; two instances on one PostgreSQL send each
// delivery once, in event order, and one killed mid-burst leaves the rest to the other.

const stores = await storesUnderTest();
const BURST = 2_000;
/** Short, so a dead instance's endpoint passes to the next sender within the test. */
const LEASE_S = '3';

interface Tally {
  /** item id → the webhook-ids it arrived with */
  ids: Map<string, Set<string>>;
  /** item ids in the order they first arrived */
  order: string[];
  /** deliveries received per webhook-id */
  copies: Map<string, number>;
}

function tally(receiver: Receiver): Tally {
  const ids = new Map<string, Set<string>>();
  const order: string[] = [];
  const copies = new Map<string, number>();
  for (const message of receiver.received) {
    const item = (JSON.parse(message.body) as { data: { id: string } }).data.id;
    const webhookId = String(message.headers['webhook-id']);
    if (!ids.has(item)) order.push(item);
    ids.set(item, (ids.get(item) ?? new Set()).add(webhookId));
    copies.set(webhookId, (copies.get(webhookId) ?? 0) + 1);
  }
  return { ids, order, copies };
}

async function subscribe(server: ServerProcess, receiver: Receiver): Promise<void> {
  const made = await fetchJson(server.url, 'POST', '/webhooks', { url: receiver.url, events: ['work.created'] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
}

const submit = (url: string, index: number): Promise<Answer> =>
  fetchJson(url, 'POST', '/work', { type: 'burst', description: `event ${index}` });

/** Every item id that answered 201, once `received` has them all. */
async function waitForAll(receiver: Receiver, committed: string[], timeoutMs = 120_000): Promise<Tally> {
  return waitFor(
    `all ${committed.length} committed events delivered`,
    async () => {
      const seen = tally(receiver);
      return committed.every((id) => seen.ids.has(id)) ? seen : null;
    },
    timeoutMs,
    200,
  );
}

describe.each(stores)('webhooks through kill -9 on %s', (kind) => {
  let database: TestDatabase | undefined;
  let receiver: Receiver | undefined;
  afterAll(async () => {
    await killAllServers();
    await receiver?.close();
    await database?.destroy();
  });

  it(`a burst of ${BURST} events, killed mid-way and restarted: each committed one arrives, with one webhook-id`, async () => {
    database = await createTestDatabase(kind);
    receiver = await startReceiver();
    const env = {
      DATABASE_URL: database.config.url,
      LOG_LEVEL: 'warn',
      WEBHOOK_LEASE_S: LEASE_S,
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
      AGENTDESK_SECRET_KEY: SECRET_KEY,
    };
    const first = await startWorkServer({ env, startTimeoutMs: 60_000 });
    await subscribe(first, receiver);
    const committed: string[] = [];
    let killed = false;
    await pooled(BURST, 16, async (index) => {
      if (killed) return;
      const answer = await submit(first.url, index);
      if (answer.status === 201) committed.push(answer.body.id as string);
      if (committed.length === BURST / 2 && !killed) {
        killed = true;
        expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
      }
    });
    const before = receiver.received.length;
    expect(before).toBeLessThan(committed.length + 16);

    const second = await startWorkServer({ env, startTimeoutMs: 60_000 });
    const seen = await waitForAll(receiver, committed);
    for (const [item, webhookIds] of seen.ids) {
      // A duplicate carries the webhook-id of the first: one id per event.
      expect(webhookIds.size, item).toBe(1);
      // Nothing that did not commit: every item announced exists.
      if (!committed.includes(item)) expect((await fetchJson(second.url, 'GET', `/work/${item}`)).status).toBe(200);
    }
    await second.stop();
  }, 240_000);
});

describe.skipIf(!stores.includes('postgres'))('webhooks from two instances on one PostgreSQL', () => {
  let database: TestDatabase | undefined;
  let receiver: Receiver | undefined;
  afterAll(async () => {
    await killAllServers();
    await receiver?.close();
    await database?.destroy();
  });

  it('each delivery sent once, in event order; one instance killed mid-burst, the other finishes', async () => {
    database = await createTestDatabase('postgres');
    receiver = await startReceiver();
    const env = {
      DATABASE_URL: database.config.url,
      LOG_LEVEL: 'warn',
      WEBHOOK_LEASE_S: LEASE_S,
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
      AGENTDESK_SECRET_KEY: SECRET_KEY,
    };
    const [a, b] = await Promise.all([
      startWorkServer({ env, startTimeoutMs: 60_000 }),
      startWorkServer({ env, startTimeoutMs: 60_000 }),
    ]);
    await subscribe(a, receiver);
    const committed: string[] = [];
    const send = async (url: string, count: number) =>
      pooled(count, 8, async (index) => {
        const answer = await submit(url, index);
        if (answer.status === 201) committed.push(answer.body.id as string);
      });
    // Both instances take writes at once, and both run their senders.
    await Promise.all([send(a.url, 300), send(b.url, 300)]);
    const calm = await waitForAll(receiver, committed);
    expect([...calm.copies.values()].every((count) => count === 1)).toBe(true);

    // A killed mid-burst: B takes the rest, and A's endpoint once its lease runs out.
    await Promise.all([
      send(b.url, 400),
      (async () => {
        await send(a.url, 200);
        expect(await a.kill()).toEqual({ code: null, signal: 'SIGKILL' });
      })(),
    ]);
    const seen = await waitForAll(receiver, committed);
    const duplicated = [...seen.copies.values()].filter((count) => count > 1);
    // At most the one delivery A was sending when it died goes twice.
    expect(duplicated.length).toBeLessThanOrEqual(1);
    for (const webhookIds of seen.ids.values()) expect(webhookIds.size).toBe(1);

    const client = new pg.Client({ connectionString: database.config.url });
    await client.connect();
    const { rows } = await client.query<{ item: string }>(
      `SELECT data::json->>'id' AS item FROM events WHERE type = 'work.created' ORDER BY id`,
    );
    await client.end();
    expect(seen.order).toEqual(rows.map((row) => row.item));
    await b.stop();
  }, 240_000);
});
