import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEventLog } from '../../src/work/index.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import {
  type HookApp,
  type Receiver,
  type Received,
  admin,
  createEndpoint,
  startHookApp,
  startReceiver,
} from './support.js';

// Webhooks through HTTP on both stores, to real receivers on loopback: every event of a scripted
// run arrives once, in order, signed so the official standardwebhooks library verifies it; the
// per-status names; the filters; rotation's two signatures for the overlap and one after it.

/** The official verifier, with its clock at the test's (it refuses timestamps five minutes off its own). */
function verifyAt(secret: string, message: Received, at: Date): unknown {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(at);
    return new Webhook(secret).verify(message.body, message.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}

describe.each(await storesUnderTest())('webhook delivery on %s', (kind) => {
  let app: HookApp;
  let receiver: Receiver;
  const clock = createTestClock();

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startHookApp(kind, clock);
  });
  afterAll(async () => {
    await app?.t.close();
    await receiver?.close();
  });

  it('a scripted run: every event once, in order, signed; per-status names; filters', async () => {
    const all = await createEndpoint(app, { url: `${receiver.url}?all`, events: ['*'] });
    const done = await createEndpoint(app, {
      url: `${receiver.url}?done`,
      events: ['work.cancelled', 'work.completed'],
    });
    const project = await call(app.t.app, 'POST', '/projects', { name: `p-${Date.now()}` }, admin);
    expect(project.status, project.text).toBe(201);
    const scoped = await createEndpoint(app, {
      url: `${receiver.url}?scoped`,
      events: ['work.created'],
      project_id: project.body.id,
    });
    const a = await call(app.t.app, 'POST', '/work', { type: 'hook-a', description: 'one' }, admin);
    const b = await call(
      app.t.app,
      'POST',
      '/work',
      { type: 'hook-b', description: 'two', project_id: project.body.id },
      admin,
    );
    expect(b.status, b.text).toBe(201);
    const finished = await call(
      app.t.app,
      'PATCH',
      `/work/${a.body.id}`,
      { status: 'cancelled', outcome: 'cancelled' },
      admin,
    );
    expect(finished.status, finished.text).toBe(200);
    await call(app.t.app, 'PATCH', `/work/${b.body.id}`, { description: 'two, edited' }, admin);

    await app.deliver();
    const to = (query: string) => receiver.received.filter((r) => r.path.endsWith(query));
    const bodies = (query: string) => to(query).map((r) => JSON.parse(r.body) as { type: string; data: any });
    expect(bodies('?all').map((b) => b.type)).toEqual([
      'project.created',
      'work.created',
      'work.created',
      'work.updated',
      'work.updated',
    ]);
    expect(bodies('?all').map((b) => b.data.id)).toEqual([project.body.id, a.body.id, b.body.id, a.body.id, b.body.id]);
    expect(bodies('?done').map((b) => [b.type, b.data.id, b.data.status])).toEqual([
      ['work.cancelled', a.body.id, 'cancelled'],
    ]);
    expect(bodies('?scoped').map((b) => b.data.id)).toEqual([b.body.id]);
    for (const [endpoint, query] of [
      [all, '?all'],
      [done, '?done'],
      [scoped, '?scoped'],
    ] as const) {
      for (const message of to(query)) {
        expect(verifyAt(endpoint.secret, message, clock.now())).toMatchObject({ type: expect.any(String) });
        expect(message.headers['webhook-id']).toMatch(/^msg_/);
      }
    }
    // Each delivery once: the fan-out and the sender run again and send nothing more.
    const count = receiver.received.length;
    expect(await app.deliver()).toBe(0);
    expect(receiver.received.length).toBe(count);

    const log = await call(app.t.app, 'GET', `/webhooks/${all.id}/deliveries?limit=3`, undefined, admin);
    expect(log.status, log.text).toBe(200);
    expect(log.body).toHaveLength(3);
    expect(log.body[0]).toMatchObject({ status: 'succeeded', attempt_count: 1, type: 'work.updated' });
    expect(log.body[0].attempts[0]).toMatchObject({ status_code: 200, response_body: 'ok', error: null });
    expect(log.headers.link).toMatch(/rel="next"/);
    const next = String(log.headers.link).match(/<([^>]+)>/)![1]!;
    const rest = await call(app.t.app, 'GET', next, undefined, admin);
    expect(rest.body.map((d: { id: string }) => d.id)).toEqual(
      to('?all')
        .slice(0, 2)
        .reverse()
        .map((r) => r.headers['webhook-id']),
    );
    // The secrets sign and are shown once: never in a log line.
    expect(app.t.logs.text()).not.toContain('whsec_');
    const metrics = await call(app.t.app, 'GET', '/metrics', undefined, admin);
    expect(metrics.text).toMatch(/agentdesk_webhook_deliveries_total\{outcome="succeeded"\} [1-9]/);
    expect(metrics.text).toContain('agentdesk_webhook_oldest_pending_seconds');
    for (const id of [all.id, done.id, scoped.id]) await call(app.t.app, 'DELETE', `/webhooks/${id}`, undefined, admin);
  });

  it('rotation: both secrets verify during the overlap, only the new one after it', async () => {
    const made = await createEndpoint(app, { url: `${receiver.url}?rot`, events: ['webhook.test'] });
    const rotated = await call(app.t.app, 'POST', `/webhooks/${made.id}/rotate-secret`, undefined, admin);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const shown = await call(app.t.app, 'GET', `/webhooks/${made.id}`, undefined, admin);
    expect(shown.body.secret_overlap_until).toBe(rotated.body.previous_valid_until);
    expect(JSON.stringify(shown.body)).not.toContain('whsec_');

    const sendTest = async () => {
      const queued = await call(app.t.app, 'POST', `/webhooks/${made.id}/test`, undefined, admin);
      expect(queued.status, queued.text).toBe(202);
      await app.deliver();
      return receiver.received.filter((r) => r.path.endsWith('?rot')).at(-1)!;
    };
    const during = await sendTest();
    expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verifyAt(made.secret, during, clock.now())).toMatchObject({ type: 'webhook.test' });
    expect(verifyAt(rotated.body.secret, during, clock.now())).toMatchObject({ type: 'webhook.test' });

    clock.advance(24 * 3_600_000 + 1_000);
    const after = await sendTest();
    expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(verifyAt(rotated.body.secret, after, clock.now())).toMatchObject({ type: 'webhook.test' });
    expect(() => verifyAt(made.secret, after, clock.now())).toThrow();
    await call(app.t.app, 'DELETE', `/webhooks/${made.id}`, undefined, admin);
  });

  it('refuses an unknown event name (listing the names), a non-http URL, an unknown query parameter', async () => {
    const unknown = await call(app.t.app, 'POST', '/webhooks', { url: receiver.url, events: ['work.exploded'] }, admin);
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('work.exploded');
    expect(unknown.text).toContain('question.asked');
    const ftp = await call(app.t.app, 'POST', '/webhooks', { url: 'ftp://example.org/', events: ['*'] }, admin);
    expect(ftp.status).toBe(422);
    const names = await call(app.t.app, 'GET', '/webhooks/events', undefined, admin);
    expect(names.body.events).toContain('work.completed');
    const made = await createEndpoint(app, { url: receiver.url, events: ['*'] });
    const odd = await call(app.t.app, 'GET', `/webhooks/${made.id}/deliveries?colour=red`, undefined, admin);
    expect(odd.status).toBe(422);
    const listed = await call(app.t.app, 'GET', '/webhooks', undefined, admin);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    await call(app.t.app, 'DELETE', `/webhooks/${made.id}`, undefined, admin);
  });
  it('the event log keeps, past its retention, the events the fan-out has not read while an endpoint exists', async () => {
    const made = await createEndpoint(app, { url: `${receiver.url}?keep`, events: ['project.created'] });
    await app.deliver();
    const read = await app.webhooks().keepAbove();
    expect(read).not.toBeNull();
    await call(app.t.app, 'POST', '/projects', { name: `unread-${Date.now()}` }, admin);
    const log = createEventLog(app.t.database);
    await log.purgeBefore(new Date(Date.now() + 3_600_000).toISOString(), read ?? undefined, 1_000);
    const left = await log.after(0, 1_000, 10_000_000);
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((event) => event.id > read!)).toBe(true);
    await app.deliver();
    expect(receiver.received.filter((r) => r.path.endsWith('?keep'))).toHaveLength(1);
    await call(app.t.app, 'DELETE', `/webhooks/${made.id}`, undefined, admin);
    expect(await app.webhooks().keepAbove()).toBeNull();
  });
  it('format slack sends {text, blocks}, signed like any other', async () => {
    const made = await createEndpoint(app, { url: `${receiver.url}?slack`, events: ['webhook.test'], format: 'slack' });
    expect((await call(app.t.app, 'POST', `/webhooks/${made.id}/test`, undefined, admin)).status).toBe(202);
    await app.deliver();
    const [message] = receiver.received.filter((r) => r.path.endsWith('?slack'));
    expect(JSON.parse(message!.body)).toMatchObject({ text: expect.any(String), blocks: expect.any(Array) });
    expect(verifyAt(made.secret, message!, clock.now())).toBeDefined();
    await call(app.t.app, 'DELETE', `/webhooks/${made.id}`, undefined, admin);
  });
});
