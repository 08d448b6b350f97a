import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET } from '../support/auth.js';
import { type CliRun, runCli, runCliJson } from '../support/cli.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { type RecordingReceiver, startRecordingReceiver } from '../support/recording-receiver.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { SECRET_KEY } from '../support/intake.js';

// `agentdesk webhook …` as an admin runs it, against a real work service on a SQLite file and a
// real receiver on 127.0.0.1: the secret printed once and verifying what arrives, the delivery
// log in text and JSON, redelivery with the same webhook-id, and the exit codes of a refusal (1)
// and a usage error (2). Run `npm run build:server` first.

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 100 });

describe('agentdesk webhook, against a real service and receiver', () => {
  let database: TestDatabase;
  let work: ServerProcess;
  let receiver: RecordingReceiver;
  let admin: Record<string, string>;
  let bot: Record<string, string>;

  beforeAll(async () => {
    receiver = await startRecordingReceiver();
    database = await createTestDatabase('sqlite');
    work = await startWorkServer({
      env: {
        DATABASE_URL: database.config.url,
        AUTH: 'tokens',
        AGENTDESK_ADMIN_TOKEN: ADMIN_SECRET,
        AUTH_FAILURE_LIMIT: '100000',
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        AGENTDESK_SECRET_KEY: SECRET_KEY,
      },
    });
    admin = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: ADMIN_SECRET };
    const token = ok(await runCli(['token', 'create', '--role', 'agent', '--name', 'b', '--agent', 'b'], admin));
    bot = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: token.stdout.trim() };
  });

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
    await receiver?.close();
  });

  it('add prints the secret once; list, show, events; test arrives signed; deliveries, redeliver, recover', async () => {
    const events = ok(await runCli(['webhook', 'events'], admin)).stdout.split('\n');
    expect(events).toEqual(expect.arrayContaining(['work.created', 'webhook.test']));

    const added = ok(
      await runCli(
        ['webhook', 'add', '--url', receiver.url, '--events', 'work.completed,question.asked', '--description', 'CI'],
        admin,
      ),
    );
    const secret = added.stdout.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(added.stderr).toMatch(/shown only now/);
    const id = /Added webhook ([0-9a-f-]{36})/.exec(added.stderr)?.[1] as string;
    expect(id).toBeDefined();

    const table = ok(await runCli(['webhook', 'list'], admin)).stdout;
    expect(table).toMatch(/^ID\s+URL\s+EVENTS\s+FORMAT\s+STATE\n/);
    expect(table).toContain('work.completed,question.asked');
    expect(table).not.toContain(secret);
    const listed = await runCliJson(['webhook', 'list'], admin);
    expect(listed.body).toEqual([expect.objectContaining({ id, url: receiver.url, enabled: true })]);
    const shown = ok(await runCli(['webhook', 'show', id], admin)).stdout;
    expect(shown).toMatch(/description\s+CI/);
    expect(shown).toMatch(/pending\s+\d+/);

    const test = await runCliJson(['webhook', 'test', id], admin);
    ok(test.run);
    expect(test.body.type).toBe('webhook.test');
    await poll(async () => receiver.received.length).toBe(1);
    expect(receiver.verify(receiver.received[0]!, secret)).toMatchObject({ type: 'webhook.test' });
    await poll(
      async () => (await runCliJson(['webhook', 'deliveries', id, '--status', 'succeeded'], admin)).body.length,
    ).toBe(1);
    const log = ok(await runCli(['webhook', 'deliveries', id], admin)).stdout;
    expect(log).toContain(`${test.body.id}  webhook.test  succeeded`);
    expect(log).toMatch(/\n {2}\S+ {2}200 {2}\d+ ms {2}ok\n/);
    expect(ok(await runCli(['webhook', 'deliveries', id, '--status', 'failed'], admin)).stdout).toBe(
      'No deliveries.\n',
    );

    expect(ok(await runCli(['webhook', 'redeliver', id, test.body.id], admin)).stdout).toBe(
      `Queued ${test.body.id} again.\n`,
    );
    await poll(async () => receiver.received.length).toBe(2);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(test.body.id);
    expect(ok(await runCli(['webhook', 'recover', id, '--since', '24h'], admin)).stdout).toBe(
      'Queued 0 failed deliveries again.\n',
    );
  });

  it('update, disable, enable, rotate-secret (printed once), delete; refusals exit 1, usage errors 2', async () => {
    const added = await runCliJson(
      ['webhook', 'add', '--url', receiver.url, '--events', '*', '--format', 'slack'],
      admin,
    );
    ok(added.run);
    const id: string = added.body.id;
    expect(added.body.secret).toMatch(/^whsec_/);

    const updated = await runCliJson(
      ['webhook', 'update', id, '--events', 'work.failed', '--types', 'deploy,build'],
      admin,
    );
    ok(updated.run);
    expect(updated.body).toMatchObject({ events: ['work.failed'], types: ['deploy', 'build'], format: 'slack' });
    expect((await runCliJson(['webhook', 'update', id, '--any-type'], admin)).body.types).toBeNull();
    expect(ok(await runCli(['webhook', 'disable', id], admin)).stdout).toMatch(
      /^Disabled \S+ {2}\S+ {2}disabled \(admin\)\n$/,
    );
    expect((await runCliJson(['webhook', 'show', id], admin)).body).toMatchObject({
      enabled: false,
      disabled_reason: 'admin',
    });
    expect(ok(await runCli(['webhook', 'enable', id], admin)).stdout).toMatch(/ enabled\n$/);

    const rotated = ok(await runCli(['webhook', 'rotate-secret', id], admin));
    expect(rotated.stdout.trim()).toMatch(/^whsec_/);
    expect(rotated.stdout.trim()).not.toBe(added.body.secret);
    expect(rotated.stderr).toMatch(/shown only now\. The previous one also signs until /);

    // Refused by the service: an unknown event, a non-admin.
    const unknown = await runCli(['webhook', 'add', '--url', receiver.url, '--events', 'work.exploded'], admin);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/refused \(422/);
    expect((await runCli(['webhook', 'list'], bot)).code).toBe(1);
    // Usage errors, caught before anything is sent.
    expect((await runCli(['webhook', 'show', 'not-an-id'], admin)).code).toBe(2);
    expect((await runCli(['webhook', 'recover', id, '--since', 'yesterday'], admin)).code).toBe(2);
    expect((await runCli(['webhook', 'update', id], admin)).code).toBe(2);
    expect((await runCli(['webhook', 'deliveries', id, '--status', 'lost'], admin)).code).toBe(2);

    expect(ok(await runCli(['webhook', 'delete', id], admin)).stdout).toBe(`Deleted webhook ${id}.\n`);
    expect((await runCli(['webhook', 'show', id], admin)).code).toBe(1);
  });
});
