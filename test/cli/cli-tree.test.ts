import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { type CliRun, runCli, runCliJson } from '../support/cli.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// On the command line: `work submit --parent --after`, `work ls --parent --ready`, and
// `work tree` drawing an item's sub-items with their statuses, against a real service on
// SQLite (the stores are covered by the API's tests). Run `npm run build:server` first.

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

describe('agentdesk work submit --parent --after, work tree', () => {
  let database: TestDatabase;
  let desk: ServerProcess;
  let admin: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    desk = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    admin = { AGENTDESK_URL: desk.url, AGENTDESK_TOKEN: ADMIN_SECRET, AGENTDESK_AGENT: 'cli-bot' };
  });

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  const submit = async (...args: string[]) => {
    const { run, body } = await runCliJson(['work', 'submit', '--type', 'cli_tree', ...args], admin);
    ok(run);
    return body;
  };

  it('submits sub-items that wait on others; lists children and ready ones; draws the tree as the work moves on', async () => {
    const epic = await submit('--description', 'ship the billing export');
    const schema = await submit('--description', 'change the schema', '--parent', epic.id, '--priority', '1');
    const api = await submit('--description', 'the export endpoint', '--parent', epic.id, '--after', schema.id);
    const docs = await submit('--description', 'document it', '--parent', epic.id, '--after', `${schema.id},${api.id}`);
    const nested = await submit('--description', 'a sub-step of the endpoint', '--parent', api.id);
    expect(api).toMatchObject({ parent_id: epic.id, waiting_on: 1 });
    const shown = await runCliJson(['work', 'show', docs.id], admin);
    expect([...shown.body.depends_on].sort()).toEqual([schema.id, api.id].sort());
    const detail = ok(await runCli(['work', 'show', docs.id], admin)).stdout;
    expect(detail).toMatch(new RegExp(`parent\\s+${epic.id}`));
    expect(detail).toMatch(/waits on \(2 of 2 not completed\)/);
    expect(detail).toMatch(new RegExp(`queued  ${api.id}  the export endpoint`));

    const children = await runCliJson(['work', 'ls', '--parent', epic.id], admin);
    expect(children.body.map((item: { id: string }) => item.id).sort()).toEqual([schema.id, api.id, docs.id].sort());
    const ready = await runCliJson(['work', 'ls', '--parent', epic.id, '--ready'], admin);
    expect(ready.body.map((item: { id: string }) => item.id)).toEqual([schema.id]);

    let tree = ok(await runCli(['work', 'tree', epic.id], admin)).stdout;
    expect(tree.split('\n')[0]).toMatch(
      new RegExp(`^queued\\s+${epic.id}  ship the billing export  \\(0 of 3 completed\\)$`),
    );
    expect(tree).toMatch(
      new RegExp(`[├└]─ queued\\s+${api.id}  the export endpoint  waiting on 1  \\(0 of 1 completed\\)`),
    );
    expect(tree).toMatch(new RegExp(`│  └─ queued\\s+${nested.id}  a sub-step of the endpoint\\n`));
    expect(tree).toMatch(new RegExp(`${docs.id}  document it  waiting on 2`));
    // eslint-disable-next-line no-control-regex -- ESC starts a colour code
    expect(tree).not.toMatch(/\u001b\[/);

    // The schema step is done: the endpoint no longer waits; the docs wait on one.
    ok(await runCli(['work', 'claim', '--type', 'cli_tree', '--agent', 'cli-bot'], admin));
    ok(await runCli(['work', 'complete', schema.id], admin));
    tree = ok(await runCli(['work', 'tree', epic.id], admin)).stdout;
    expect(tree.split('\n')[0]).toMatch(/\(1 of 3 completed\)$/);
    expect(tree).toMatch(new RegExp(`completed\\s+${schema.id}  change the schema`));
    expect(tree).toMatch(new RegExp(`queued\\s+${api.id}  the export endpoint  \\(0 of 1 completed\\)`));
    expect(tree).toMatch(new RegExp(`${docs.id}  document it  waiting on 1`));

    const asJson = await runCliJson(['work', 'tree', epic.id], admin);
    expect(asJson.body.item.id).toBe(epic.id);
    expect(asJson.body.children.map((child: { item: { id: string } }) => child.item.id).sort()).toEqual(
      [schema.id, api.id, docs.id].sort(),
    );
    const shallow = await runCliJson(['work', 'tree', epic.id, '--depth', '1'], admin);
    const apiNode = shallow.body.children.find((child: { item: { id: string } }) => child.item.id === api.id);
    expect(apiNode).toMatchObject({ children: [], truncated: true });
    // Sixteen processes, each a Node start: on a shared machine that is more than the default.
  }, 120_000);

  it('refuses an --after that is not an item id before asking the service (exit 2); an unknown one is the service’s 422 (exit 1)', async () => {
    const typo = await runCli(
      ['work', 'submit', '--type', 'cli_tree', '--description', 'x', '--after', 'not-an-id'],
      admin,
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/expected a work item id/);
    const unknown = await runCli(
      ['work', 'submit', '--type', 'cli_tree', '--description', 'x', '--after', '00000000-0000-4000-8000-000000000000'],
      admin,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/refused \(422/);
    const tree = await runCli(['work', 'tree', '00000000-0000-4000-8000-000000000000'], admin);
    expect(tree.code).toBe(1);
    expect(tree.stderr).toMatch(/refused \(404/);
  });
});
