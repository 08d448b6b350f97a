import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET } from '../support/auth.js';
import { CLI_JS, type CliRun, runCli, runCliJson, throughCliServe } from '../support/cli.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { type ServerProcess, freePort, killAllServers, startWorkServer } from '../support/processes.js';

// The `agentdesk` binary as a user runs it, against real servers on a real SQLite
// file; the work service itself started by `agentdesk serve`. Every command once, `--json`
// parsed, exit codes 0 (ok), 1 (refused), 2 (usage), 3 (cannot reach). Run
// `npm run build:server` first. The PostgreSQL half is in cli-postgres.test.ts.

const EML = new URL('../fixtures/email/written/invoice_overdue_reply.eml', import.meta.url);
const GRAPH_JSON = new URL('../fixtures/email/graph_02_v1_message_get_welcome_text_body.json', import.meta.url);
// eslint-disable-next-line no-control-regex -- ESC starts the colour codes this looks for
const ANSI = /\u001b\[/;

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

describe('agentdesk on the command line, against real servers on SQLite', () => {
  let database: TestDatabase;
  let work: ServerProcess;
  let classify: ServerProcess;
  let folder: string;
  let base: Record<string, string>;
  let admin: Record<string, string>;
  let bot: Record<string, string>;
  let otherBot: Record<string, string>;
  let viewerId: string;
  let viewer: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    folder = await mkdtemp(join(tmpdir(), 'agentdesk-cli-'));
    const serverEnv = {
      DATABASE_URL: database.config.url,
      AUTH: 'tokens',
      AGENTDESK_ADMIN_TOKEN: ADMIN_SECRET,
      AUTH_FAILURE_LIMIT: '100000',
    };
    work = await startWorkServer({ env: serverEnv, wrap: throughCliServe });
    classify = await startWorkServer({ env: serverEnv, service: 'classify' });
    base = { AGENTDESK_URL: work.url, AGENTDESK_CLASSIFY_URL: classify.url };
    admin = { ...base, AGENTDESK_TOKEN: ADMIN_SECRET };
    // Tokens through the API (no DATABASE_URL in the CLI's environment), with the admin token.
    const mint = async (...args: string[]) => ok(await runCli(['token', 'create', ...args], admin)).stdout.trim();
    bot = { ...base, AGENTDESK_TOKEN: await mint('--role', 'agent', '--name', 'bot-1-key', '--agent', 'bot-1') };
    otherBot = { ...base, AGENTDESK_TOKEN: await mint('--role', 'agent', '--name', 'bot-2-key', '--agent', 'bot-2') };
    const { run, body } = await runCliJson(['token', 'create', '--role', 'viewer', '--name', 'watcher'], admin);
    ok(run);
    viewerId = body.id;
    viewer = { ...base, AGENTDESK_TOKEN: body.token };
  });

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('token create|ls|revoke through the API: secrets printed once, never listed; a revoked token is refused (exit 1)', async () => {
    expect(bot.AGENTDESK_TOKEN).toMatch(/^adk_/);
    const listed = await runCliJson(['token', 'ls'], admin);
    ok(listed.run);
    expect(listed.body.map((t: { name: string }) => t.name).sort()).toEqual(['bot-1-key', 'bot-2-key', 'watcher']);
    expect(listed.run.stdout).not.toContain(bot.AGENTDESK_TOKEN);
    const table = ok(await runCli(['token', 'ls'], admin)).stdout;
    expect(table).toMatch(/^ID\s+ROLE\s+NAME\s+AGENT\s+STATE\s+LAST USED\n/);
    expect(table).toMatch(/bot-1-key\s+bot-1\s+active/);

    ok(await runCli(['work', 'ls'], viewer));
    ok(await runCli(['token', 'revoke', viewerId], admin));
    const refused = await runCli(['work', 'ls'], viewer);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused \(401/);
    // Only an admin may list tokens: 403, exit 1.
    expect((await runCli(['token', 'ls'], bot)).code).toBe(1);
  });

  it('project create, rename (by name), ls', async () => {
    const created = await runCliJson(['project', 'create', 'Payments', '--external-ref', 'JIRA-PAY'], admin);
    ok(created.run);
    expect(created.body).toMatchObject({ name: 'Payments', external_ref: 'JIRA-PAY' });
    const renamed = await runCliJson(['project', 'rename', 'payments', 'Billing'], admin);
    ok(renamed.run);
    expect(renamed.body).toMatchObject({ id: created.body.id, name: 'Billing' });
    const listed = await runCliJson(['project', 'ls'], bot);
    expect(listed.body).toEqual([renamed.body]);
    expect(ok(await runCli(['project', 'ls'], bot)).stdout).toMatch(
      /^ID\s+NAME\s+CREATED\s+EXTERNAL REF\n.*Billing\s+(just now|\d+s ago)\s+JIRA-PAY/,
    );
    // A duplicate name (ignoring case) is refused by the service; an agent may not create.
    expect((await runCli(['project', 'create', 'BILLING'], admin)).code).toBe(1);
    expect((await runCli(['project', 'create', 'Mine'], bot)).code).toBe(1);
  });

  it('work submit (payload from a file, project by name), ls with filters and --all, show: tables without colour, --json parsed', async () => {
    const payloadFile = join(folder, 'payload.json');
    await writeFile(payloadFile, JSON.stringify({ pr: 42, repo: 'agentdesk' }));
    const submitted = await runCliJson(
      [
        'work',
        'submit',
        '--type',
        'code_review',
        '--description',
        'Review PR 42',
        '--priority',
        '2',
        '--project',
        'Billing',
        '--payload',
        `@${payloadFile}`,
      ],
      admin,
    );
    ok(submitted.run);
    expect(submitted.body).toMatchObject({
      type: 'code_review',
      priority: 2,
      status: 'queued',
      payload: { pr: 42, repo: 'agentdesk' },
    });
    expect(submitted.body.project_id).toMatch(/^[0-9a-f-]{36}$/);
    const second = await runCliJson(
      ['work', 'submit', '--type', 'triage', '--description', 'Sort the inbox', '--agent', 'bot-1'],
      admin,
    );
    expect(second.body).toMatchObject({ status: 'dispatched', assigned_agent: 'bot-1' });

    const byType = await runCliJson(
      ['work', 'ls', '--type', 'code_review', '--project', 'billing', '--status', 'queued'],
      bot,
    );
    ok(byType.run);
    expect(byType.body.map((item: { id: string }) => item.id)).toEqual([submitted.body.id]);
    const byAgent = await runCliJson(['work', 'ls', '--agent', 'bot-1', '--status', 'dispatched,in_progress'], bot);
    expect(byAgent.body.map((item: { id: string }) => item.id)).toEqual([second.body.id]);
    // One per page: the next page is named on stderr; --all follows every page.
    const paged = await runCliJson(['work', 'ls', '--limit', '1'], bot);
    expect(paged.body).toHaveLength(1);
    expect(paged.run.stderr).toMatch(/--cursor \S+/);
    const all = await runCliJson(['work', 'ls', '--limit', '1', '--all'], bot);
    expect(all.body).toHaveLength(2);

    const table = ok(await runCli(['work', 'ls'], bot)).stdout;
    expect(table).not.toMatch(ANSI);
    const [header, ...rows] = table.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+STATUS\s+PRI\s+TYPE\s+AGENT\s+UPDATED\s+DESCRIPTION$/);
    expect(rows).toHaveLength(2);
    // Aligned: every row's status column starts where the header's does.
    const statusAt = header!.indexOf('STATUS');
    for (const row of rows) expect(row.slice(statusAt)).toMatch(/^(queued|dispatched) /);
    expect(table).toMatch(/(just now|\d+s ago)\s+Review PR 42/);

    const shown = await runCliJson(['work', 'show', submitted.body.id], bot);
    expect(shown.body).toMatchObject({ id: submitted.body.id, dispatch_log: [] });
    const detail = ok(await runCli(['work', 'show', submitted.body.id], bot)).stdout;
    expect(detail).toMatch(/^id\s+[0-9a-f-]{36}$/m);
    expect(detail).toContain('"repo": "agentdesk"');
    expect(detail).not.toMatch(ANSI);
  });

  it('the agent loop: claim (the agent comes from the token), heartbeat, note, block with a note, start, complete', async () => {
    // The item dispatched to bot-1 comes first, whatever its priority.
    const claimed = await runCliJson(['work', 'claim', '--type', 'triage,code_review', '--lease', '120'], bot);
    ok(claimed.run);
    expect(claimed.body).toMatchObject({ type: 'triage', status: 'in_progress', assigned_agent: 'bot-1' });
    const id: string = claimed.body.id;
    const beat = await runCliJson(['work', 'heartbeat', id, '--lease', '600'], bot);
    ok(beat.run);
    expect(Date.parse(beat.body.lease_expires_at)).toBeGreaterThan(Date.parse(claimed.body.lease_expires_at));
    ok(await runCli(['work', 'note', id, 'Looked at the first ten'], bot));
    const blocked = await runCliJson(['work', 'block', id, '--notes', 'Waiting for access to the shared inbox'], bot);
    expect(blocked.body).toMatchObject({
      status: 'blocked',
      notes: 'Looked at the first ten\n\nWaiting for access to the shared inbox',
    });
    expect((await runCliJson(['work', 'start', id], bot)).body.status).toBe('in_progress');
    const done = await runCliJson(['work', 'complete', id, '--notes', 'Inbox sorted'], bot);
    ok(done.run);
    expect(done.body).toMatchObject({ status: 'completed', outcome: 'success', lease_expires_at: null });
    expect(done.body.notes).toMatch(/Inbox sorted$/);
    expect(done.body.dispatch_log).toEqual([
      expect.objectContaining({ agent: 'bot-1', outcome: 'success', reason: 'completed' }),
    ]);
    // Run again (a retry after a lost answer): the move and its note are not made twice.
    const again = await runCliJson(['work', 'complete', id, '--notes', 'Inbox sorted'], bot);
    ok(again.run);
    expect(again.body).toMatchObject({ status: 'completed', notes: done.body.notes, version: done.body.version });
    // The human line after a move.
    const history = ok(await runCli(['work', 'show', id], bot)).stdout;
    expect(history).toMatch(/^DISPATCHED\s+AGENT\s+ENDED\s+OUTCOME\s+REASON$/m);
  });

  it('fail and cancel; a refused move exits 1, with the problem document on stdout under --json', async () => {
    const claimed = await runCliJson(['work', 'claim', '--type', 'code_review'], bot);
    expect(claimed.body.status).toBe('in_progress');
    const failed = await runCliJson(['work', 'fail', claimed.body.id, '--notes', 'The branch is gone'], bot);
    expect(failed.body).toMatchObject({ status: 'failed', outcome: 'failed', notes: 'The branch is gone' });

    const queued = await runCliJson(['work', 'submit', '--type', 'triage', '--description', 'Never mind'], admin);
    const refused = await runCliJson(['work', 'complete', queued.body.id], admin);
    expect(refused.run.code).toBe(1);
    expect(refused.body).toMatchObject({
      status: 409,
      title: 'Conflict',
      allowed_statuses: ['dispatched', 'cancelled'],
    });
    expect(refused.run.stderr).toMatch(/refused \(409 Conflict\): Cannot move a work item from queued to completed/);
    const human = await runCli(['work', 'complete', queued.body.id], admin);
    expect(human).toMatchObject({ code: 1, stdout: '' });

    const cancelled = await runCliJson(['work', 'cancel', queued.body.id], admin);
    ok(cancelled.run);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', outcome: 'cancelled' });
  });

  it("another agent's token cannot touch the first agent's item (403, exit 1); an admin token must name the agent (exit 2)", async () => {
    const item = await runCliJson(
      ['work', 'submit', '--type', 'triage', '--description', 'For bot-1 only', '--agent', 'bot-1'],
      admin,
    );
    const stolen = await runCli(['work', 'start', item.body.id], otherBot);
    expect(stolen.code).toBe(1);
    expect(stolen.stderr).toMatch(/refused \(403 Forbidden\).*bot-2/);
    expect((await runCli(['work', 'heartbeat', item.body.id, '--agent', 'bot-1'], otherBot)).code).toBe(1);
    expect((await runCli(['work', 'note', item.body.id, 'mine now'], otherBot)).code).toBe(1);
    expect((await runCliJson(['work', 'show', item.body.id], admin)).body.notes).toBeNull();

    const noAgent = await runCli(['work', 'claim'], admin);
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toMatch(/acts as no agent: pass --agent/);
    const forBot = await runCliJson(['work', 'claim', '--agent', 'bot-1'], admin);
    expect(forBot.body).toMatchObject({ id: item.body.id, assigned_agent: 'bot-1' });
  });

  it('claim with nothing to claim waits, then answers null and exits 0', async () => {
    const started = Date.now();
    const { run, body } = await runCliJson(['work', 'claim', '--type', 'nothing_here', '--wait', '1'], bot);
    ok(run);
    expect(body).toBeNull();
    expect(run.stderr).toContain('Nothing to claim for bot-1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('usage errors exit 2 before anything is sent', async () => {
    const cases: string[][] = [
      [],
      ['bogus'],
      ['work'],
      ['work', 'show', 'not-an-id'],
      ['work', 'claim', '--wait', '31'],
      ['work', 'submit', '--description', 'no type'],
      ['work', 'submit', '--type', 't', '--description', 'd', '--priority', 'high'],
      ['work', 'submit', '--type', 't', '--description', 'd', '--payload', `@${join(folder, 'missing.json')}`],
      ['work', 'submit', '--type', 't', '--description', 'd', '--payload', '{not json'],
      ['work', 'ls', '--sort', 'oldest'],
      ['token', 'create', '--role', 'root', '--name', 'x'],
      ['token', 'revoke', 'not-an-id'],
      ['classify', join(folder, 'missing.eml')],
    ];
    const runs = await Promise.all(cases.map((args) => runCli(args, admin)));
    runs.forEach((run, i) =>
      expect({ args: cases[i], code: run.code, stdout: run.stdout }).toEqual({
        args: cases[i],
        code: 2,
        stdout: expect.any(String),
      }),
    );
    // A bad environment is a usage error too.
    expect((await runCli(['work', 'ls'], { AGENTDESK_URL: 'not a url' })).code).toBe(2);
  });

  it('a service nobody answers for exits 3, naming the address', async () => {
    const port = await freePort();
    const gone = await runCli(['work', 'ls'], { ...admin, AGENTDESK_URL: `http://127.0.0.1:${port}` });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain(`cannot reach agentdesk at http://127.0.0.1:${port}: ECONNREFUSED`);
    const noClassifier = await runCli(['classify', fileURLToPath(EML)], {
      ...admin,
      AGENTDESK_CLASSIFY_URL: `http://127.0.0.1:${port}`,
    });
    expect(noClassifier.code).toBe(3);
  });

  it('an answer of 5xx (the service cannot serve now) exits 3; the problem is still shown', async () => {
    const failing = createServer((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/problem+json' });
      response.end(
        JSON.stringify({
          type: 'https://agentdesk.dev/problems/unavailable',
          title: 'Service Unavailable',
          status: 503,
          detail: 'The database does not answer',
        }),
      );
    });
    failing.listen(0, '127.0.0.1');
    await once(failing, 'listening');
    try {
      const { port } = failing.address() as AddressInfo;
      const run = await runCli(['project', 'ls'], { AGENTDESK_URL: `http://127.0.0.1:${port}` });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain('The database does not answer');
    } finally {
      failing.close();
    }
  });

  it('on a terminal the statuses are coloured; NO_COLOR turns colour off', async () => {
    // `script` gives the CLI a pseudo-terminal as stdout, as a person's shell would.
    const onTerminal = async (extra: Record<string, string>) => {
      const command = `'${process.execPath}' '${CLI_JS}' work ls --status completed`;
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm', ...bot, ...extra },
      });
      const chunks: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      const [code] = (await once(child, 'close')) as [number];
      return { code, text: Buffer.concat(chunks).toString('utf8') };
    };
    const coloured = await onTerminal({});
    expect(coloured.code).toBe(0);
    expect(coloured.text).toContain('\u001b[32mcompleted\u001b[39m');
    const plain = await onTerminal({ NO_COLOR: '1' });
    expect(plain.text).toContain('completed');
    expect(plain.text).not.toMatch(ANSI);
  });

  it('classify a .eml file (MIME) and a Graph message as JSON from stdin', async () => {
    const { run, body } = await runCliJson(['classify', fileURLToPath(EML)], admin);
    ok(run);
    expect(body).toMatchObject({ needs_action: true, details: { deadline: '2025-06-06' } });
    // The MIME parts reached the service decoded: the encoded-word subject, the QP body, the Cc name.
    expect(body.details.suggested_notes).toContain('Subject: Re: Invoice INV-2291 – payment overdue');
    expect(body.details.people).toContain('Jürgen Müller');
    expect(body.reasoning).toContain('has_attachments');
    const human = ok(await runCli(['classify', fileURLToPath(EML)], admin)).stdout;
    // The second time the same message is a duplicate, and the text says so.
    expect(human).toMatch(/dedupe: duplicate/);
    expect(human).not.toMatch(ANSI);

    const graph = await runCliJson(['classify', '-'], admin, { stdin: await readFile(GRAPH_JSON, 'utf8') });
    ok(graph.run);
    expect(graph.body.dedupe.status).toBe('new');
    // An agent token may not classify (intake and admin only).
    expect((await runCli(['classify', fileURLToPath(EML)], bot)).code).toBe(1);
  });

  it('--help on every command exits 0 and describes it', async () => {
    const commands = [
      [],
      ['work'],
      ...['ls', 'show', 'submit', 'claim', 'heartbeat', 'start', 'block', 'complete', 'fail', 'cancel', 'note'].map(
        (c) => ['work', c],
      ),
      ['project'],
      ...['ls', 'create', 'rename'].map((c) => ['project', c]),
      ['token'],
      ...['create', 'ls', 'revoke'].map((c) => ['token', c]),
      ['webhook'],
      ...['add', 'list', 'events', 'show', 'update', 'enable', 'disable', 'delete', 'rotate-secret', 'test'].map(
        (c) => ['webhook', c],
      ),
      ...['deliveries', 'redeliver', 'recover'].map((c) => ['webhook', c]),
      ['schedule'],
      ...['add', 'list', 'show', 'update', 'enable', 'disable', 'delete', 'run', 'preview'].map((c) => ['schedule', c]),
      ['backup'],
      ['archive'],
      ['restore-archive'],
      ['classify'],
      ['serve'],
      ['mcp'],
    ];
    for (let i = 0; i < commands.length; i += 4) {
      const batch = commands.slice(i, i + 4);
      const runs = await Promise.all(batch.map((args) => runCli([...args, '--help'], {})));
      runs.forEach((run, j) => {
        expect({ args: batch[j], code: run.code }).toEqual({ args: batch[j], code: 0 });
        expect(run.stdout).toMatch(new RegExp(`^Usage: agentdesk ${(batch[j] ?? []).join(' ')}`.trimEnd()));
      });
    }
  }, 120_000);

  it('agentdesk serve stops cleanly on SIGTERM, like npm start', async () => {
    expect(work.running()).toBe(true);
    const exit = await work.stop();
    expect(exit).toEqual({ code: 0, signal: null });
  });
});

describe('agentdesk under AUTH=off (a loopback desk): the agent is AGENTDESK_AGENT', () => {
  let database: TestDatabase;
  let work: ServerProcess;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    work = await startWorkServer({ env: { DATABASE_URL: database.config.url, AUTH: 'off' } });
  });
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('submits as AGENTDESK_AGENT (X-User), claims for it, or for --agent; with neither, claim is a usage error', async () => {
    const ada = { AGENTDESK_URL: work.url, AGENTDESK_AGENT: 'ada' };
    const submitted = await runCliJson(
      ['work', 'submit', '--type', 'docs', '--description', 'Write the CLI section'],
      ada,
    );
    expect(submitted.body.created_by).toBe('ada');
    const claimed = await runCliJson(['work', 'claim'], ada);
    expect(claimed.body).toMatchObject({ id: submitted.body.id, assigned_agent: 'ada', status: 'in_progress' });
    ok(await runCli(['work', 'heartbeat', submitted.body.id], ada));

    await runCliJson(['work', 'submit', '--type', 'docs', '--description', 'Second'], ada);
    const forBob = await runCliJson(['work', 'claim', '--agent', 'bob'], ada);
    expect(forBob.body.assigned_agent).toBe('bob');

    const nobody = await runCli(['work', 'claim'], { AGENTDESK_URL: work.url });
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(/AGENTDESK_AGENT/);
  });

  it('claim --finish completes the last item in the same request; refused, it exits 1 and claims nothing', async () => {
    const cy = { AGENTDESK_URL: work.url, AGENTDESK_AGENT: 'cy' };
    const first = await runCliJson(['work', 'submit', '--type', 'cli_finish', '--description', 'First'], cy);
    const second = await runCliJson(['work', 'submit', '--type', 'cli_finish', '--description', 'Second'], cy);
    expect((await runCliJson(['work', 'claim', '--type', 'cli_finish'], cy)).body.id).toBe(first.body.id);
    const refused = await runCli(['work', 'claim', '--type', 'cli_finish', '--finish', second.body.id], cy);
    expect(refused.code).toBe(1);
    expect((await runCliJson(['work', 'show', second.body.id], cy)).body.status).toBe('queued');
    const next = await runCliJson(['work', 'claim', '--type', 'cli_finish', '--finish', first.body.id], cy);
    expect(next.body).toMatchObject({ id: second.body.id, status: 'in_progress', assigned_agent: 'cy' });
    expect((await runCliJson(['work', 'show', first.body.id], cy)).body).toMatchObject({
      status: 'completed',
      outcome: 'success',
    });
    const last = await runCli(['work', 'claim', '--type', 'cli_finish', '--finish', second.body.id], cy);
    expect(last).toMatchObject({ code: 0, stdout: '' });
    expect(last.stderr).toMatch(/Nothing to claim for cy/);
    expect((await runCliJson(['work', 'show', second.body.id], cy)).body.status).toBe('completed');
  });
});
