import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { type SilentServer, closedPort, startSilentServer } from '../support/smtp.js';
import { type MailApp, SMTP_PASSWORD, claimedItem, startMailApp } from './outbox-support.js';

// SMTP servers that do not work, on both stores: one down (nobody listens on its port) and one
// that takes the connection and never greets. The rows show failed with what went wrong and are
// retried on the test's clock; asking answers while the sender is stuck on the silent server.
// The people told are the test support's profiles, watching every item it makes.

const FAILED = (id: string) => `/notifications?status=failed&work_item_id=${id}`;

describe.each(await storesUnderTest())('an unreachable SMTP server on %s', (kind) => {
  describe('down', () => {
    let app: MailApp;
    const clock = createTestClock();
    beforeAll(async () => {
      app = await startMailApp(kind, await closedPort(), clock, {
        connectionMs: 2_000,
        greetingMs: 2_000,
        socketMs: 2_000,
      });
    });
    afterAll(() => app?.t.close());

    it('the row fails with the refused connection and is retried with a longer wait each time', async () => {
      const item = await claimedItem(app);
      const asked = await call(app.t.app, 'POST', `/work/${item.id}/questions`, { question: 'Go?' }, app.as.ada);
      expect(asked.status, asked.text).toBe(201);
      await app.sender().runOnce();
      const [first] = (await call(app.t.app, 'GET', FAILED(item.id), undefined, app.as.admin)).body;
      expect(first).toMatchObject({ status: 'failed', attempts: 1 });
      expect(first.last_error).toMatch(/ECONNREFUSED/);
      const firstWait = Date.parse(first.next_attempt_at) - clock.now().getTime();

      clock.advance(firstWait);
      await app.sender().runOnce();
      const [second] = (await call(app.t.app, 'GET', FAILED(item.id), undefined, app.as.admin)).body;
      expect(second).toMatchObject({ status: 'failed', attempts: 2 });
      expect(Date.parse(second.next_attempt_at) - clock.now().getTime()).toBe(2 * firstWait);
      expect(app.t.logs.text()).not.toContain(SMTP_PASSWORD);
    });
  });

  describe('silent after the connection', () => {
    let app: MailApp;
    let silent: SilentServer;
    const clock = createTestClock();
    beforeAll(async () => {
      silent = await startSilentServer();
      app = await startMailApp(kind, silent.port, clock, { connectionMs: 1_500, greetingMs: 1_500, socketMs: 10_000 });
    });
    afterAll(async () => {
      await app?.t.close();
      await silent?.close();
    });

    it('asking answers while the sender waits for a greeting; the row then fails on the greeting timeout', async () => {
      const first = await claimedItem(app);
      const asked = await call(app.t.app, 'POST', `/work/${first.id}/questions`, { question: 'One?' }, app.as.ada);
      expect(asked.status, asked.text).toBe(201);
      const hung = await silent.connected();

      // The sender holds a connection the server never answers, and the API does not wait for it.
      const second = await claimedItem(app);
      const again = await call(app.t.app, 'POST', `/work/${second.id}/questions`, { question: 'Two?' }, app.as.ada);
      expect(again.status, again.text).toBe(201);
      expect(silent.open.has(hung)).toBe(true);
      const listed = await call(app.t.app, 'GET', `/work/${first.id}/notifications`, undefined, app.as.mia);
      expect(listed.body).toMatchObject([{ status: 'pending', attempts: 0 }]);

      await app.sender().runOnce();
      for (const item of [first, second]) {
        const [row] = (await call(app.t.app, 'GET', FAILED(item.id), undefined, app.as.admin)).body;
        expect(row).toMatchObject({ status: 'failed', attempts: 1 });
        expect(row.last_error).toMatch(/greeting/i);
      }
    });
  });
});
