import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemError } from '../../src/client/errors.js';
import type { FetchLike } from '../../src/client/http.js';
import { createInjectFetch } from '../../src/client/inject-fetch.js';
import { type WorkClient, createWorkClient } from '../../src/client/work-client.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { type RecordingReceiver, startRecordingReceiver } from '../support/recording-receiver.js';
import { SECRET_KEY } from '../support/intake.js';

// The typed client's webhook calls against a real work app on each store and a real receiver on
// 127.0.0.1 that checks each signature with the official library; every route it calls is in
// the OpenAPI document.

const BASE = 'http://agentdesk.test';
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 50 });

describe.each(await storesUnderTest())('the webhook calls on %s', (kind) => {
  let desk: TestApp;
  let receiver: RecordingReceiver;
  let admin: WorkClient;
  let bot: WorkClient;

  beforeAll(async () => {
    receiver = await startRecordingReceiver();
    desk = await startWorkApp(kind, {
      ...AUTH_ENV,
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
      AGENTDESK_SECRET_KEY: SECRET_KEY,
    });
    const fetch = createInjectFetch(desk.app);
    admin = createWorkClient({ baseUrl: BASE, token: ADMIN_SECRET, fetch });
    const minted = await mintToken(desk.app, { role: 'agent', agent: 'bot-1' });
    bot = createWorkClient({ baseUrl: BASE, token: minted.token, fetch });
  });
  afterAll(async () => {
    await desk?.close();
    await receiver?.close();
  });

  it('adds an endpoint (secret once), tests it, reads the log, redelivers with the same id, recovers, disables, rotates, deletes', async () => {
    const names = await admin.listWebhookEvents();
    expect(names).toEqual(expect.arrayContaining(['work.created', 'question.asked', 'webhook.test']));

    const created = await admin.createWebhook({
      url: receiver.url,
      events: ['work.completed'],
      description: 'the client test',
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({ enabled: true, format: 'standard', disabled_reason: null });
    const listed = await admin.listWebhooks();
    expect(listed.map((w) => w.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    const detail = await admin.getWebhook(created.id);
    expect(detail).toMatchObject({ id: created.id, description: 'the client test', pending: expect.any(Number) });

    const test = await admin.testWebhook(created.id);
    expect(test).toMatchObject({ endpoint_id: created.id, type: 'webhook.test' });
    await poll(
      async () => (await admin.listWebhookDeliveries(created.id, { status: 'succeeded' })).deliveries.length,
    ).toBe(1);
    const [sent] = receiver.received;
    expect(sent?.headers['webhook-id']).toBe(test.id);
    expect(receiver.verify(sent!, created.secret)).toMatchObject({ type: 'webhook.test' });
    const log = await admin.listWebhookDeliveries(created.id);
    expect(log.deliveries[0]?.attempts[0]).toMatchObject({ status_code: 200, response_body: 'ok', error: null });
    expect(log.next_cursor).toBeNull();

    const again = await admin.redeliverWebhook(created.id, test.id);
    expect(again.id).toBe(test.id);
    await poll(async () => receiver.received.length).toBe(2);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(test.id);
    expect((await admin.recoverWebhookDeliveries(created.id, new Date(0).toISOString())).requeued).toBe(0);

    const disabled = await admin.updateWebhook(created.id, { enabled: false });
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'admin' });
    const enabled = await admin.updateWebhook(created.id, { enabled: true, events: ['*'] });
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, events: ['*'] });

    const rotated = await admin.rotateWebhookSecret(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.previous_valid_until)).toBeGreaterThan(Date.now());

    await admin.deleteWebhook(created.id);
    const gone = (await admin.getWebhook(created.id).catch((e: unknown) => e)) as ProblemError;
    expect(gone.status).toBe(404);
  });

  it('pages the delivery log by cursor; refuses an unknown event name (422, naming the names) and a non-admin (403)', async () => {
    const hook = await admin.createWebhook({ url: receiver.url, events: ['webhook.test'] });
    for (let i = 0; i < 3; i++) await admin.testWebhook(hook.id);
    const first = await admin.listWebhookDeliveries(hook.id, { limit: 2 });
    expect(first.deliveries).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = await admin.listWebhookDeliveries(hook.id, { limit: 2, cursor: first.next_cursor! });
    expect(second.deliveries).toHaveLength(1);
    expect(new Set([...first.deliveries, ...second.deliveries].map((d) => d.id)).size).toBe(3);

    const unknown = (await admin
      .createWebhook({ url: receiver.url, events: ['work.exploded'] })
      .catch((e: unknown) => e)) as ProblemError;
    expect(unknown).toBeInstanceOf(ProblemError);
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.problem)).toContain('work.created');
    const forbidden = (await bot.listWebhooks().catch((e: unknown) => e)) as ProblemError;
    expect(forbidden.status).toBe(403);
    await admin.deleteWebhook(hook.id);
  });

  it('every webhook route the client calls is in the OpenAPI document, with the method it uses', async () => {
    const calls: Array<{ method: string; path: string }> = [];
    const recording: FetchLike = async (url, init) => {
      calls.push({ method: init.method ?? 'GET', path: new URL(url).pathname });
      return new Response('{"events":[],"requeued":0}', {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    const client = createWorkClient({ baseUrl: BASE, fetch: recording });
    const id = '11111111-1111-4111-8111-111111111111';
    await client.createWebhook({ url: 'https://example.org/hook', events: ['*'] });
    await client.listWebhooks();
    await client.getWebhook(id);
    await client.updateWebhook(id, { enabled: false });
    await client.deleteWebhook(id);
    await client.rotateWebhookSecret(id);
    await client.testWebhook(id);
    await client.listWebhookDeliveries(id, { status: 'failed' });
    await client.redeliverWebhook(id, 'msg_abc');
    await client.recoverWebhookDeliveries(id, new Date(0).toISOString());
    await client.listWebhookEvents();

    const document = desk.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
    const missing = calls.filter(({ method, path }) => {
      // The most specific template wins (/webhooks/events before /webhooks/{id}).
      const match = templates
        .filter(({ pattern }) => pattern.test(path))
        .sort((a, b) => a.template.split('{').length - b.template.split('{').length)[0];
      return !match || !(method.toLowerCase() in (document.paths[match.template] ?? {}));
    });
    expect(missing).toEqual([]);
    expect(calls).toHaveLength(11);
  });
});
