import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET } from '../support/auth.js';
import { type CliRun, runCli, runCliJson } from '../support/cli.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// `agentdesk schedule …` as a user runs it, against a real work server on a SQLite file: a
// member adds, lists, shows, updates, disables, enables, runs and deletes a schedule; a viewer
// reads but is refused (exit 1); a bad expression is refused naming cron; a wrong command line
// is exit 2. Run `npm run build:server` first.

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

describe('agentdesk schedule, against a real server on SQLite', () => {
  let database: TestDatabase;
  let work: ServerProcess;
  let member: Record<string, string>;
  let viewer: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    work = await startWorkServer({
      env: { DATABASE_URL: database.config.url, AUTH: 'tokens', AGENTDESK_ADMIN_TOKEN: ADMIN_SECRET },
    });
    const admin = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: ADMIN_SECRET };
    const mint = async (...args: string[]) => ok(await runCli(['token', 'create', ...args], admin)).stdout.trim();
    member = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: await mint('--role', 'member', '--name', 'mia') };
    viewer = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: await mint('--role', 'viewer', '--name', 'vic') };
    ok(await runCli(['project', 'create', 'Inbox'], admin));
  });

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('preview, add, list, show, update, disable, enable, run, delete', async () => {
    const preview = ok(
      await runCli(['schedule', 'preview', '--cron', '30 8 * * 1-5', '--tz', 'Europe/Berlin'], viewer),
    );
    const lines = preview.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^LOCAL\s+UTC$/);
    expect(lines).toHaveLength(6);
    expect(lines[1]).toMatch(/T08:30:00\+0[12]:00\s+\S+Z$/);

    const added = await runCliJson(
      [
        'schedule',
        'add',
        '--name',
        'Triage',
        '--cron',
        '30 8 * * 1-5',
        '--tz',
        'Europe/Berlin',
        '--type',
        'triage',
        '--description',
        'Triage the inbox',
        '--priority',
        '2',
        '--project',
        'inbox',
        '--overlap',
        'skip',
      ],
      member,
    );
    ok(added.run);
    expect(added.body).toMatchObject({ name: 'Triage', enabled: true, overlap: 'skip', created_by: 'mia' });
    expect(added.body.item).toMatchObject({ type: 'triage', priority: 2 });
    expect(added.body.project_id).toMatch(/^[0-9a-f-]{36}$/);
    const id: string = added.body.id;

    expect(ok(await runCli(['schedule', 'list'], viewer)).stdout).toMatch(
      /^ID\s+NAME\s+CRON\s+ZONE\s+STATE\s+NEXT RUN \(LOCAL\)\n\S+\s+Triage\s+30 8 \* \* 1-5\s+Europe\/Berlin\s+enabled\s+\S+T08:30:00/,
    );
    expect((await runCliJson(['schedule', 'list', '--disabled'], viewer)).body).toEqual([]);

    const updated = await runCliJson(['schedule', 'update', 'triage', '--description', 'Sort the inbox'], member);
    ok(updated.run);
    expect(updated.body.item).toMatchObject({ type: 'triage', description: 'Sort the inbox', priority: 2 });

    ok(await runCli(['schedule', 'disable', id], member));
    expect((await runCliJson(['schedule', 'list', '--disabled'], viewer)).body.map((s: any) => s.id)).toEqual([id]);
    expect(ok(await runCli(['schedule', 'enable', 'Triage'], member)).stdout).toMatch(/Triage .* enabled /);

    const ran = ok(await runCli(['schedule', 'run', id], member)).stdout;
    const made = /^Made ([0-9a-f-]{36}) /.exec(ran)?.[1];
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    const item = await runCliJson(['work', 'show', made!], viewer);
    expect(item.body.payload.schedule).toMatchObject({ id, name: 'Triage' });

    const shown = ok(await runCli(['schedule', 'show', id], viewer)).stdout;
    expect(shown).toContain('rhythm      30 8 * * 1-5 in Europe/Berlin');
    expect(shown).toMatch(/Next runs\n( {2}\S+T08:30:00\S+ {2}\(\S+Z\)\n){5}/);
    expect(shown).toMatch(new RegExp(`Occurrences \\(newest first\\)\\n {2}\\S+ {2}run_now {2}${made}`));

    // A viewer reads but may not change (refused: exit 1).
    const refused = await runCli(['schedule', 'run', id], viewer);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused \(403/);

    expect(ok(await runCli(['schedule', 'delete', id], member)).stdout).toBe(`Deleted ${id}.\n`);
    expect(ok(await runCli(['schedule', 'list'], viewer)).stdout).toBe('No schedules.\n');
    expect((await runCli(['schedule', 'show', id], viewer)).code).toBe(1);
  });

  it('a bad expression is refused naming cron (exit 1); a wrong command line is exit 2', async () => {
    const bad = await runCli(['schedule', 'preview', '--cron', '61 8 * * *', '--tz', 'UTC'], member);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/refused \(422[^\n]*\n {2}cron: /);

    const usage = [
      ['schedule', 'add', '--name', 'x', '--cron', '@daily'],
      ['schedule', 'add', '--name', 'x', '--cron', '@daily', '--type', 't', '--description', 'd', '--missed', 'never'],
      ['schedule', 'add', '--name', 'x', '--cron', '@daily', '--type', 't', '--description', 'd', '--max-catchup', '0'],
      ['schedule', 'list', '--enabled', '--disabled'],
      ['schedule', 'update', 'whatever'],
      ['schedule', 'preview'],
    ];
    for (const args of usage) expect({ args, code: (await runCli(args, member)).code }).toEqual({ args, code: 2 });
  });

  it('--help on every schedule command', async () => {
    const commands = ['add', 'list', 'show', 'update', 'enable', 'disable', 'delete', 'run', 'preview'];
    const runs = await Promise.all(
      [[], ...commands.map((c) => [c])].map((c) => runCli(['schedule', ...c, '--help'], {})),
    );
    runs.forEach((run, i) => {
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^Usage: agentdesk schedule${i === 0 ? '' : ` ${commands[i - 1]}`}`));
    });
  }, 60_000);
});
