import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { createSecretBox } from '../../src/shared/secret-box.js';
import { createHttpTransport } from '../../src/webhooks/index.js';
import { startWebhookSender } from '../../src/webhooks/sender.js';
import { secretContext } from '../../src/webhooks/signing.js';
import { webhookStatementsFor } from '../../src/webhooks/store/index.js';
import type { WebhookStatements } from '../../src/webhooks/store/port.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';
import { SECRET_KEY } from '../support/intake.js';
import { NO_TIMER_MS, type Receiver, startReceiver } from './support.js';

// The sender's runOnce waits for every send under way, also one that a nudge's claim started
// beside its own: that claim can take the endpoint while runOnce's finds it taken and comes back
// empty. Here the nudge's claim answers only after runOnce's caller has had its own answer.

const AT = '2027-01-10T10:00:00.000Z';
const ENDPOINT = randomUUID();
const DELIVERY = randomUUID();

describe.each(await storesUnderTest())('the webhook sender on %s', (kind) => {
  let test: TestDatabase;
  let database: Database;
  let receiver: Receiver;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    database = await openTestDatabase(test);
    receiver = await startReceiver();
    const box = createSecretBox(SECRET_KEY)!;
    await database.kysely
      .insertInto('webhook_endpoints')
      .values({
        id: ENDPOINT,
        url: receiver.url,
        events: '["*"]',
        project_id: null,
        types: null,
        format: 'standard',
        description: null,
        enabled: 1,
        disabled_reason: null,
        failing_since: null,
        secret: box.seal(
          `whsec_${Buffer.from('a run-once secret of 32 bytes!!').toString('base64')}`,
          secretContext(ENDPOINT),
        ),
        previous_secret: null,
        previous_valid_until: null,
        claimed_until: null,
        created_by: 'ann',
        created_at: AT,
        updated_at: AT,
        work_item_id: null,
        headers: null,
      })
      .execute();
    await database.kysely
      .insertInto('webhook_deliveries')
      .values({
        id: DELIVERY,
        endpoint_id: ENDPOINT,
        event_id: null,
        type: 'work.created',
        body: '{"type":"work.created"}',
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: AT,
        created_at: AT,
        delivered_at: null,
      })
      .execute();
  });

  afterAll(async () => {
    await receiver?.close();
    await database?.close();
    await test?.destroy();
  });

  it("waits for the send a nudge's claim started beside its own", async () => {
    const statementsOn = webhookStatementsFor(database.dialect);
    const top = statementsOn(database.kysely);
    let answerFirst: () => void = () => {};
    const secondAnswered = new Promise<void>((resolve) => (answerFirst = resolve));
    let claims = 0;
    const late: WebhookStatements = {
      ...top,
      async claimEndpoints(now, leaseUntil, limit) {
        claims += 1;
        const call = claims;
        const claimed = await top.claimEndpoints(now, leaseUntil, limit);
        if (call === 1) await secondAnswered;
        // After the second claim's caller has had its answer.
        else setImmediate(answerFirst);
        return claimed;
      },
    };
    const http = createHttpTransport({ allowedHosts: ['127.0.0.1'], timeoutMs: 30_000 });
    const sender = startWebhookSender({
      database,
      top: late,
      statementsOn,
      transport: http.transport,
      guard: async () => {},
      secrets: createSecretBox(SECRET_KEY),
      appendEvent: async () => {},
      now: () => new Date(Date.parse(AT) + 1_000),
      logger: pino({ level: 'silent' }),
      pollMs: NO_TIMER_MS,
    });
    try {
      // runOnce's first step awaits; the nudge's claim goes first and takes the endpoint.
      const run = sender.runOnce();
      sender.nudge();
      expect(await run).toBe(1);
      expect(receiver.received).toHaveLength(1);
      const delivery = await database.kysely
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempt_count'])
        .where('id', '=', DELIVERY)
        .executeTakeFirstOrThrow();
      expect(delivery).toEqual({ status: 'succeeded', attempt_count: 1 });
    } finally {
      await sender.stop();
      await http.close();
    }
  });
});
