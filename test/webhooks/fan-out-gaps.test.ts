import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { waitFor } from '../support/mail.js';
import { type HookApp, type Receiver, admin, createEndpoint, startHookApp, startReceiver } from './support.js';

// PostgreSQL hands out event ids at insert and shows them at commit: the fan-out must neither skip
// an event that commits after a higher one, nor wait forever for an id whose writer rolled back.

const stores = (await storesUnderTest()).filter((kind) => kind === 'postgres');

describe.skipIf(stores.length === 0)('the webhook fan-out at a gap in the event log (postgres)', () => {
  let app: HookApp;
  let receiver: Receiver;
  const clock = createTestClock();

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startHookApp('postgres', clock);
    await createEndpoint(app, { url: receiver.url, events: ['project.created', 'project.updated'] });
  });
  afterAll(async () => {
    await app?.t.close();
    await receiver?.close();
  });

  /** Inserts an event in a transaction left open; resolves with its id and the ways to end it. */
  async function openWriter(name: string) {
    const client = await app.t.database.pool!.connect();
    await client.query('BEGIN');
    const data = JSON.stringify({ id: randomUUID(), name });
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO events (type, data, created_at) VALUES ('project.created', $1, $2) RETURNING id`,
      [data, clock.now().toISOString()],
    );
    const end = async (how: 'COMMIT' | 'ROLLBACK') => {
      await client.query(how);
      client.release();
    };
    return { id: Number(rows[0]!.id), commit: () => end('COMMIT'), rollback: () => end('ROLLBACK') };
  }
  const names = () => receiver.received.map((r) => JSON.parse(r.body).data.name as string);
  const project = async (name: string) =>
    expect((await call(app.t.app, 'POST', '/projects', { name }, admin)).status).toBe(201);

  it('waits for a late commit below a visible event, then sends both in id order', async () => {
    const late = await openWriter('late');
    await project('after-late');
    await app.deliver();
    expect(names()).toEqual([]);
    expect(await app.webhooks().keepAbove()).toBeLessThan(late.id);
    await late.commit();
    await waitFor('both events', async () => {
      await app.deliver();
      return names().length === 2 ? true : null;
    });
    expect(names()).toEqual(['late', 'after-late']);
  });

  it('steps over an id whose writer rolled back', async () => {
    const doomed = await openWriter('doomed');
    await project('after-doomed');
    await app.deliver();
    expect(names()).not.toContain('after-doomed');
    await doomed.rollback();
    // PostgreSQL names the transactions running in the whole cluster: another database's (a test
    // running beside this one) can hold the gap a moment longer, so deliver until it has ended.
    await waitFor('the event after the rolled-back id', async () => {
      await app.deliver();
      return names().includes('after-doomed') ? true : null;
    });
    expect(names().slice(-1)).toEqual(['after-doomed']);
    expect(names()).not.toContain('doomed');
  });
});
