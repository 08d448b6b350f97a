import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli, runCliJson, throughCliServe } from '../support/cli.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// On PostgreSQL: the bootstrap (the first admin token made by `agentdesk token create`
// with only DATABASE_URL, before any service runs), then the agent loop through a service
// started by `agentdesk serve`, and a revocation written straight to the database. The full
// command sweep is in cli.test.ts on SQLite. Run `npm run build:server` first.

const hasPostgres = (await storesUnderTest()).includes('postgres');

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

describe.skipIf(!hasPostgres)('agentdesk on the command line, on PostgreSQL', () => {
  let database: TestDatabase;
  let work: ServerProcess;
  let onDatabase: Record<string, string>;
  let admin: Record<string, string>;
  let bot: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    onDatabase = { DATABASE_URL: database.config.url };
    // Nothing runs yet: the CLI migrates the empty schema and writes the token itself.
    const secret = ok(
      await runCli(['token', 'create', '--role', 'admin', '--name', 'first-admin'], onDatabase),
    ).stdout.trim();
    work = await startWorkServer({
      env: { ...onDatabase, AUTH: 'tokens', AUTH_FAILURE_LIMIT: '100000' },
      wrap: throughCliServe,
    });
    admin = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: secret };
  });

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('the first admin token, made on the database, works against the service; more tokens through the API', async () => {
    const agentToken = ok(
      await runCli(['token', 'create', '--role', 'agent', '--name', 'pg-bot', '--agent', 'pg-bot'], admin),
    ).stdout.trim();
    bot = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: agentToken };
    // DATABASE_URL set: `token ls` reads the database, with no service and no token.
    const listed = await runCliJson(['token', 'ls'], onDatabase);
    ok(listed.run);
    expect(listed.body.map((t: { name: string; created_by: string }) => [t.name, t.created_by]).sort()).toEqual([
      ['first-admin', 'cli'],
      ['pg-bot', 'first-admin'],
    ]);
  });

  it('the agent loop: submit, claim, heartbeat, complete; a refused move exits 1', async () => {
    const submitted = await runCliJson(
      ['work', 'submit', '--type', 'pg_job', '--description', 'On PostgreSQL', '--payload', '{"n":1}'],
      admin,
    );
    ok(submitted.run);
    const claimed = await runCliJson(['work', 'claim', '--type', 'pg_job', '--wait', '2'], bot);
    expect(claimed.body).toMatchObject({ id: submitted.body.id, status: 'in_progress', assigned_agent: 'pg-bot' });
    ok(await runCli(['work', 'heartbeat', submitted.body.id], bot));
    const done = await runCliJson(['work', 'complete', submitted.body.id, '--notes', 'done on pg'], bot);
    expect(done.body).toMatchObject({ status: 'completed', outcome: 'success', notes: 'done on pg' });
    const again = await runCliJson(['work', 'block', submitted.body.id], bot);
    expect(again.run.code).toBe(1);
    expect(again.body.status).toBe(409);
    const table = ok(await runCli(['work', 'ls', '--status', 'completed'], bot)).stdout;
    expect(table).toMatch(/completed\s+3\s+pg_job\s+pg-bot\s+(just now|\d+s ago)\s+On PostgreSQL/);
  });

  it('a refused command on the database exits at once, with no connection left to wait for', async () => {
    const started = Date.now();
    const refused = await runCli(['token', 'create', '--role', 'agent', '--name', 'no-agent'], onDatabase);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('agent is required');
    // It took the pool's 30 s idle timeout before close() ended the migrations' connection.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a token revoked on the database is refused by the running service (exit 1)', async () => {
    const listed = await runCliJson(['token', 'ls'], admin);
    const botId = listed.body.find((t: { name: string }) => t.name === 'pg-bot').id;
    ok(await runCli(['token', 'revoke', botId], onDatabase));
    await expect.poll(async () => (await runCli(['work', 'ls'], bot)).code, { timeout: 10_000, interval: 200 }).toBe(1);
  });
});
