import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { FAKE_ANSWER, type FakeLlm, createLatch, startFakeLlm } from '../support/fake-llm.js';
import { fetchJson } from '../support/fetch-json.js';
import { SECRET_KEY } from '../support/intake.js';
import { mail, waitFor } from '../support/mail.js';
import { type ServerProcess, killAllServers, sleep, startWorkServer } from '../support/processes.js';

// Kill -9 of the service in the middle of a 500-message backfill, then the work goes
// on: every message that needs action has exactly one work item, and the provider never
// answered for the same message twice. Two instances run from the start; the one watching the
// mailbox is killed while the provider holds a request, and the other takes the mailbox over
// when its lease runs out (then the killed one comes back, and they stay one watcher).
// Needs dist/: `npm run build:server` first.

const MESSAGES = 500;
/**
 * The provider holds its answer for this message, and the instance is killed while it waits:
 * the messages after it in the same window are classified by then, their outcomes not yet
 * written (they are committed in order), so the restart must find their answers stored.
 */
const HELD_SUBJECT = 'Please approve purchase order 151';
const PASSWORD = 'crash-test-imap-password';
const NEWSLETTER = {
  ...FAKE_ANSWER,
  needs_action: false,
  category: 'newsletter',
  priority: 'low',
  task_description: null,
};

const stores = await storesUnderTest();

function subjectOf(request: { body: Record<string, unknown> }): string {
  const match = /<email_subject>([^<]*)<\/email_subject>/.exec(JSON.stringify(request.body.messages));
  return match?.[1] ?? '?';
}

describe.each(stores)('kill -9 mid-backfill on %s', (kind) => {
  let database: TestDatabase | undefined;
  let dovecot: Dovecot | undefined;
  let fake: FakeLlm | undefined;

  afterAll(async () => {
    await killAllServers();
    await dovecot?.close();
    await fake?.close();
    await database?.destroy();
  });

  it('ends with one work item per message that needs action, none classified twice', async () => {
    database = await createTestDatabase(kind);
    dovecot = await startDovecot({ password: PASSWORD });
    fake = await startFakeLlm();
    fake.setAnswerer((prompt) => (/<email_subject>[^<]*newsletter/i.test(prompt) ? NEWSLETTER : null));

    const needsAction = new Set<string>();
    const batch: string[] = [];
    for (let n = 1; n <= MESSAGES; n += 1) {
      const subject = n % 2 === 0 ? `Weekly newsletter ${n}` : `Please approve purchase order ${n}`;
      if (n % 2 === 1) needsAction.add(subject);
      batch.push(mail({ subject, text: `Message number ${n}.`, messageId: `<crash-${n}@mail.example.com>` }));
    }
    await dovecot.append('backfill', batch);

    const latch = createLatch();
    fake.setReplier((prompt) =>
      prompt.includes(`<email_subject>${HELD_SUBJECT}<`) ? { kind: 'held', latch, then: { kind: 'answer' } } : null,
    );

    const env = {
      DATABASE_URL: database.config.url,
      LOG_LEVEL: 'info',
      AGENTDESK_SECRET_KEY: SECRET_KEY,
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: fake.openaiBaseUrl,
      LLM_API_KEY: 'sk-fake-crash',
      // Longer than the test holds a request: the held ones are cut by the kill, not a timeout.
      LLM_TIMEOUT_MS: '10000',
      LLM_MAX_RETRIES: '0',
      INTAKE_LEASE_S: '2',
      INTAKE_CONCURRENCY: '4',
      INTAKE_RECONNECT_MAX_S: '1',
      INTAKE_ALLOWED_HOSTS: dovecot.host,
    };
    const first: ServerProcess = await startWorkServer({ env });
    const created = await fetchJson(first.url, 'POST', '/mailboxes', {
      name: 'Backfill',
      kind: 'imap',
      host: dovecot.host,
      port: dovecot.port,
      tls: 'none',
      username: 'backfill',
      password: PASSWORD,
      since: new Date(Date.now() - 86_400_000).toISOString(),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const mailboxId: string = created.body.id;
    await waitFor('the first instance to take the mailbox', async () => first.stdout().includes('mailbox taken'));
    const second: ServerProcess = await startWorkServer({ env });

    await latch.reached;
    // The answers given before the hold are stored by now; the held ones never will be.
    await sleep(300);
    const before = await fetchJson(first.url, 'GET', `/mailboxes/${mailboxId}`);
    expect(before.body.backfill.total).toBe(MESSAGES);
    expect(before.body.backfill.done).toBeGreaterThan(0);
    expect(before.body.backfill.done).toBeLessThan(MESSAGES);
    expect(second.stdout()).not.toContain('mailbox taken');
    // Messages after the held one were classified, and are waiting for it to be written first.
    const numbers = fake.requests.map((request) => Number(/\d+$/.exec(subjectOf(request))?.[0]));
    expect(Math.max(...numbers)).toBeGreaterThan(151);
    expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    fake.setReplier(null);
    latch.open();

    // The survivor takes the mailbox over once the lease has run out, and finishes the backfill.
    const done = await waitFor(
      'the backfill to finish on the second instance',
      async () => {
        const mailbox = await fetchJson(second.url, 'GET', `/mailboxes/${mailboxId}`);
        return mailbox.body.counts?.seen >= MESSAGES ? mailbox.body : null;
      },
      90_000,
      250,
    );
    expect(second.stdout()).toContain('mailbox taken');
    // The killed instance comes back: it must not start a second watcher beside the survivor.
    const third = await startWorkServer({ env });
    await sleep(3_000);
    expect(third.stdout()).not.toContain('mailbox taken');

    const failed = await fetchJson(second.url, 'GET', `/mailboxes/${mailboxId}/messages?status=failed`);
    expect(failed.body).toEqual([]);
    expect(done.counts).toMatchObject({ seen: MESSAGES, classified: MESSAGES, items_created: MESSAGES / 2, failed: 0 });
    const items = await fetchJson<Array<{ payload: { email: { subject: string; message_id: string } } }>>(
      second.url,
      'GET',
      '/work?type=email_task&limit=1000',
    );
    expect(items.status).toBe(200);
    const subjects = items.body.map((item) => item.payload.email.subject);
    expect(subjects.length).toBe(needsAction.size);
    expect(new Set(subjects)).toEqual(needsAction);

    const log: unknown[] = [];
    let next: string | null = `/mailboxes/${mailboxId}/messages?limit=500`;
    while (next) {
      const response = await fetch(second.url + next);
      log.push(...((await response.json()) as unknown[]));
      next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1] ?? null;
    }
    expect(log).toHaveLength(MESSAGES);

    // Each message reached the provider once, except the one it was holding at the kill: its
    // answer never arrived, so it was asked again, once. None was answered twice.
    const calls = new Map<string, number>();
    for (const request of fake.requests) calls.set(subjectOf(request), (calls.get(subjectOf(request)) ?? 0) + 1);
    expect(calls.size).toBe(MESSAGES);
    const askedTwice = [...calls]
      .filter(([, count]) => count > 1)
      .map(([subject]) => subject)
      .sort();
    expect(askedTwice).toEqual([HELD_SUBJECT]);
    expect(Math.max(...calls.values())).toBe(2);

    expect(await second.stop()).toEqual({ code: 0, signal: null });
    expect(await third.stop()).toEqual({ code: 0, signal: null });
  }, 180_000);
});
