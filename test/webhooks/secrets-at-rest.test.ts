import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { SECRET_KEY } from '../support/intake.js';
import { type HookApp, type Receiver, admin, createEndpoint, startHookApp, startReceiver } from './support.js';

// An endpoint's signing secret is a credential the desk must present again, so it is kept sealed
// under AGENTDESK_SECRET_KEY: the database holds no secret in clear (the current one nor the one
// a rotation keeps), deliveries still verify, and a desk without the key keeps none (409).

describe.each(await storesUnderTest())('webhook secrets at rest on %s', (kind) => {
  let app: HookApp;
  let receiver: Receiver;
  let keyless: TestApp;
  // The verifier compares the signature's time with its own clock: the desk's starts at now.
  const clock = createTestClock();

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startHookApp(kind, clock);
    keyless = await startWorkApp(kind, { ...AUTH_ENV, OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.t.close();
    await keyless?.close();
    await receiver?.close();
  });

  it('the stored secrets are sealed; what is sent still verifies with the secret given', async () => {
    const made = await createEndpoint(app, { url: receiver.url, events: ['webhook.test'] });
    const rotated = await call(app.t.app, 'POST', `/webhooks/${made.id}/rotate-secret`, undefined, admin);
    expect(rotated.status, rotated.text).toBe(200);
    const row = await app.t.database.kysely
      .selectFrom('webhook_endpoints')
      .select(['secret', 'previous_secret'])
      .where('id', '=', made.id)
      .executeTakeFirstOrThrow();
    for (const [stored, given] of [
      [row.secret, rotated.body.secret as string],
      [row.previous_secret, made.secret],
    ] as const) {
      expect(stored).not.toContain('whsec_');
      expect(stored).not.toContain(given.slice('whsec_'.length));
    }
    expect((await call(app.t.app, 'POST', `/webhooks/${made.id}/test`, undefined, admin)).status).toBe(202);
    await app.deliver();
    const [delivery] = receiver.received;
    const headers = delivery!.headers as Record<string, string>;
    // Within the overlap both the new secret and the one it replaced verify.
    expect(new Webhook(rotated.body.secret).verify(delivery!.body, headers)).toMatchObject({ type: 'webhook.test' });
    expect(new Webhook(made.secret).verify(delivery!.body, headers)).toMatchObject({ type: 'webhook.test' });
  });

  it('without AGENTDESK_SECRET_KEY no endpoint is made: a 409 that says why', async () => {
    const made = await call(keyless.app, 'POST', '/webhooks', { url: receiver.url, events: ['*'] }, admin);
    expect(made.status, made.text).toBe(409);
    expect(made.headers['content-type']).toContain('application/problem+json');
    expect(made.text).toContain('AGENTDESK_SECRET_KEY');
    expect(SECRET_KEY).not.toBe('');
  });
});
