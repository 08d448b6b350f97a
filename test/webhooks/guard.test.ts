import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTransport, type Webhooks } from '../../src/webhooks/index.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { NO_TIMER_MS, type Receiver, admin, startReceiver } from './support.js';
import { SECRET_KEY } from '../support/intake.js';

// The outbound guard on webhooks, with no allow-list: metadata, loopback (also as an IPv4-mapped
// IPv6 literal) and a name that resolves to a private address are refused when the endpoint is
// saved; a name that passed and then resolves to loopback (rebinding) is refused at the attempt,
// and the receiver listening there hears nothing.

describe.each(await storesUnderTest())('the webhook guard on %s', (kind) => {
  let t: TestApp;
  let webhooks: Webhooks | undefined;
  let receiver: Receiver;
  const clock = createTestClock(Date.parse('2027-01-10T10:00:00.000Z'));
  /** rebind.example answers a public address first and loopback after. */
  let rebindLookups = 0;
  const resolve = async (host: string): Promise<string[]> => {
    if (host === 'internal.example') return ['10.1.2.3'];
    if (host === 'rebind.example') return rebindLookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1'];
    throw new Error(`unknown host ${host}`);
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    const http = createHttpTransport({ allowedHosts: [], resolve, timeoutMs: 2_000 });
    t = await startWorkApp(
      kind,
      { ...AUTH_ENV, AGENTDESK_SECRET_KEY: SECRET_KEY },
      {
        now: clock.now,
        sweepEveryMs: NO_TIMER_MS,
        webhooks: {
          guard: http.guard,
          transport: http.transport,
          sender: { pollMs: NO_TIMER_MS },
          fanOutPollMs: NO_TIMER_MS,
        },
        onWebhooks: (started) => (webhooks = started),
      },
    );
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const port = () => new URL(receiver.url).port;

  it.each([
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', /never reached/],
    ['loopback', () => `http://127.0.0.1:${port()}/hook`, /OUTBOUND_ALLOWED_HOSTS/],
    [
      'loopback as an IPv4-mapped IPv6 literal',
      () => `http://[::ffff:127.0.0.1]:${port()}/hook`,
      /OUTBOUND_ALLOWED_HOSTS/,
    ],
    ['a name that resolves to a private address', () => 'https://internal.example/hook', /OUTBOUND_ALLOWED_HOSTS/],
    ['another scheme', () => 'ftp://example.org/hook', /http/],
  ])('refuses %s when the endpoint is saved (422 on url)', async (_what, url, says) => {
    const made = await call(t.app, 'POST', '/webhooks', { url: url(), events: ['*'] }, admin);
    expect(made.status, made.text).toBe(422);
    expect(made.headers['content-type']).toContain('application/problem+json');
    expect(JSON.stringify(made.body)).toMatch(says);
    expect(made.text).not.toContain('stack');
  });

  it('a name that passed and then resolves to loopback is refused at the attempt; nothing reaches the receiver', async () => {
    const made = await call(
      t.app,
      'POST',
      '/webhooks',
      { url: `http://rebind.example:${port()}/hook`, events: ['*'] },
      admin,
    );
    expect(made.status, made.text).toBe(201);
    const sent = await call(t.app, 'POST', `/webhooks/${made.body.id}/test`, undefined, admin);
    expect(sent.status, sent.text).toBe(202);
    await webhooks!.fanOut();
    await webhooks!.start().runOnce();
    const [delivery] = (await call(t.app, 'GET', `/webhooks/${made.body.id}/deliveries`, undefined, admin)).body;
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ status_code: null });
    expect(delivery.attempts[0].error).toMatch(/not allowed/);
    expect(receiver.received).toEqual([]);
  });
});
