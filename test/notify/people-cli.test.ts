import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { type CliRun, runCli, runCliJson } from '../support/cli.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// `agentdesk people …` and `ask --to` against a real work service (AUTH=tokens) on each store:
// a member sets and reads its own profile, is refused another's (exit 1), an admin lists and
// deletes; a question names its people. Run `npm run build:server` first.

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

// Each command is a process of its own.
const SLOW = 120_000;

describe.each(await storesUnderTest())('agentdesk people on %s', (kind) => {
  let database: TestDatabase;
  let work: ServerProcess;
  let admin: Record<string, string>;
  let mia: Record<string, string>;
  let bot: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    work = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    admin = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: ADMIN_SECRET };
    const mint = async (...args: string[]) => ok(await runCli(['token', 'create', ...args], admin)).stdout.trim();
    mia = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: await mint('--role', 'member', '--name', 'mia') };
    bot = {
      AGENTDESK_URL: work.url,
      AGENTDESK_TOKEN: await mint('--role', 'agent', '--name', 'bot-key', '--agent', 'bot'),
    };
  }, SLOW);

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  }, SLOW);

  it(
    'set, get, list and delete a profile; another person is refused (exit 1); a bad mode is a usage error',
    async () => {
      const set = await runCliJson(
        [
          'people',
          'set',
          'mia',
          '--email',
          'mia@example.org',
          '--notify',
          'digest',
          '--digest-at',
          '09:15',
          '--tz',
          'Europe/Paris',
        ],
        mia,
      );
      ok(set.run);
      expect(set.body).toMatchObject({ name: 'mia', notify: 'digest', digest_at: '09:15', tz: 'Europe/Paris' });
      const line = ok(await runCli(['people', 'get', 'mia'], mia)).stdout;
      expect(line).toBe('mia  mia@example.org  digest at 09:15 (Europe/Paris)\n');
      ok(await runCli(['people', 'set', 'bob', '--email', 'bob@example.org', '--notify', 'off'], admin));
      expect((await runCli(['people', 'get', 'bob'], mia)).code).toBe(1);
      expect((await runCli(['people', 'set', 'mia', '--email', 'm@example.org', '--notify', 'loud'], mia)).code).toBe(
        2,
      );
      const listed = await runCliJson(['people', 'list'], admin);
      expect(listed.body.map((p: { name: string }) => p.name)).toEqual(['bob', 'mia']);
      expect(ok(await runCli(['people', 'list'], admin)).stdout).toMatch(/NAME\s+EMAIL\s+NOTIFY/);
      expect(ok(await runCli(['people', 'delete', 'bob'], admin)).stdout).toBe('Deleted bob.\n');
      expect((await runCli(['people', 'delete', 'bob'], admin)).code).toBe(1);
    },
    SLOW,
  );

  it(
    'ask --to names the people to tell',
    async () => {
      ok(await runCli(['work', 'submit', '--type', 'to_people', '--description', 'who is told'], admin));
      const submitted = await runCliJson(['work', 'claim', '--type', 'to_people'], bot);
      ok(submitted.run);
      const asked = await runCliJson(['ask', submitted.body.id, 'which one?', '--to', 'mia', '--to', 'bob'], bot);
      ok(asked.run);
      expect(asked.body.to).toEqual(['mia', 'bob']);
      // The open question stands; and more than ten people is refused before that.
      const many = Array.from({ length: 11 }, (_, i) => ['--to', `p${i}`]).flat();
      const refused = await runCli(['ask', submitted.body.id, 'and this?', ...many], bot);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/to/);
    },
    SLOW,
  );
});
