import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { type CliRun, runCli, runCliJson } from '../support/cli.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { type SseClient, connectSse } from '../support/sse.js';

// On the command line: the `agentdesk` binary as an agent and a person run it, against
// a real work service (AUTH=tokens) on each store. The agent comments with links and asks; the
// person reads the inbox and answers, and the agent's `ask --wait` ends with the answer; a
// review is returned and approved with `agentdesk review`. Run `npm run build:server` first.

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

// Each command is a process of its own: a test runs a dozen of them.
const SLOW = 120_000;

describe.each(await storesUnderTest())('agentdesk conversation commands on %s', (kind) => {
  let database: TestDatabase;
  let work: ServerProcess;
  let admin: Record<string, string>;
  let bot: Record<string, string>;
  let person: Record<string, string>;
  let events: SseClient;

  const mint = async (...args: string[]) => ok(await runCli(['token', 'create', ...args], admin)).stdout.trim();

  async function claimed(type: string, extra: string[] = []): Promise<string> {
    ok(await runCli(['work', 'submit', '--type', type, '--description', `a ${type} item`, ...extra], admin));
    const claim = await runCliJson(['work', 'claim', '--type', type], bot);
    ok(claim.run);
    expect(claim.body).toMatchObject({ status: 'in_progress', assigned_agent: 'bot-1' });
    return claim.body.id;
  }

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    work = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    admin = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: ADMIN_SECRET };
    bot = {
      AGENTDESK_URL: work.url,
      AGENTDESK_TOKEN: await mint('--role', 'agent', '--name', 'bot-1-key', '--agent', 'bot-1'),
    };
    person = {
      AGENTDESK_URL: work.url,
      AGENTDESK_TOKEN: await mint('--role', 'member', '--name', 'ada-key', '--agent', 'ada'),
    };
    events = await connectSse(`${work.url}/events`, { authorization: `Bearer ${ADMIN_SECRET}` });
  });

  afterAll(async () => {
    events?.close();
    await killAllServers();
    await database?.destroy();
  }, SLOW);

  it(
    'work comment: a note with links, printed as a line or as JSON; a bad link is refused (exit 1)',
    async () => {
      const id = await claimed('cli_comment');
      const made = await runCliJson(
        [
          'work',
          'comment',
          id,
          'Opened PR 7',
          '--link',
          'https://example.com/pr/7',
          '--link',
          'https://example.com/ci/9',
        ],
        bot,
      );
      ok(made.run);
      expect(made.body).toMatchObject({
        work_item_id: id,
        author: 'bot-1',
        kind: 'note',
        body: 'Opened PR 7',
        links: [{ url: 'https://example.com/pr/7' }, { url: 'https://example.com/ci/9' }],
      });
      const line = ok(await runCli(['work', 'comment', id, 'Tests pass', '--kind', 'progress'], bot)).stdout;
      expect(line).toMatch(new RegExp(`^[0-9a-f-]{36}  progress by bot-1 (just now|\\d+s ago)  Tests pass\\n$`));
      const refused = await runCli(['work', 'comment', id, 'see', '--link', 'javascript:alert(1)'], bot);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/refused \(4\d\d/);
      // A usage mistake never reaches the service.
      expect((await runCli(['work', 'comment', 'not-an-id', 'x'], bot)).code).toBe(2);
      expect((await runCli(['work', 'comment', id, 'x', '--kind', 'question'], bot)).code).toBe(2);
    },
    SLOW,
  );

  it(
    "work comments and work show: a person's comments reach the agent in full",
    async () => {
      const id = await claimed('cli_read_comments');
      ok(
        await runCli(
          ['work', 'comment', id, 'Use the staging database,\nnot prod.', '--link', 'https://example.com/runbook'],
          person,
        ),
      );
      for (let n = 2; n <= 11; n += 1) ok(await runCli(['work', 'comment', id, `person's comment ${n}`], person));

      const all = ok(await runCli(['work', 'comments', id], bot)).stdout;
      expect(all).toMatch(
        /^ {2}ada \(member\) note (just now|\d+s ago) {2}[0-9a-f-]{36}\n {4}Use the staging database,\n {4}not prod\.\n {4}link https:\/\/example\.com\/runbook\n/,
      );
      expect(all.indexOf("person's comment 11")).toBeGreaterThan(all.indexOf("person's comment 10"));
      const json = await runCliJson(['work', 'comments', id], bot);
      expect(json.body.map((comment: { body: string }) => comment.body)).toEqual([
        'Use the staging database,\nnot prod.',
        ...Array.from({ length: 10 }, (_, n) => `person's comment ${n + 2}`),
      ]);
      const latest = await runCliJson(['work', 'comments', id, '--latest', '2'], bot);
      expect(latest.body.map((comment: { body: string }) => comment.body)).toEqual([
        "person's comment 10",
        "person's comment 11",
      ]);

      const shown = ok(await runCli(['work', 'show', id], bot)).stdout;
      expect(shown).toContain(`comments (the 10 latest of 11; all: agentdesk work comments ${id})`);
      expect(shown).toContain("    person's comment 11");
      expect(shown).not.toContain('Use the staging database');
      const shownJson = await runCliJson(['work', 'show', id], bot);
      expect(shownJson.body).toMatchObject({ id, comment_count: 11 });
      expect(shownJson.body.latest_comments).toHaveLength(10);
      expect(shownJson.body.latest_comments[0]).toMatchObject({
        body: "person's comment 11",
        author: 'ada',
        role: 'member',
      });
      expect((await runCli(['work', 'comments', 'not-an-id'], bot)).code).toBe(2);
    },
    SLOW,
  );

  it(
    'ask, inbox, answer: the person answers from the inbox and the waiting agent gets the answer',
    async () => {
      const id = await claimed('cli_ask');
      const waiting = runCliJson(
        ['ask', id, 'Refund or replace?', '--option', 'refund', '--option', 'replace', '--wait', '20'],
        bot,
      );
      await events.waitFor(
        (seen) => seen.some((event) => event.event === 'question.asked' && event.data.includes(id)),
        15_000,
      );

      const inbox = await runCliJson(['inbox'], person);
      ok(inbox.run);
      expect(inbox.body.find((entry: { work_item_id: string }) => entry.work_item_id === id)).toMatchObject({
        question: 'Refund or replace?',
        options: ['refund', 'replace'],
        status: 'open',
        asked_by: 'bot-1',
      });
      const table = ok(await runCli(['inbox'], person)).stdout;
      expect(table).toMatch(/^ITEM\s+KIND\s+WAITING\s+PRI\s+ASKED BY\s+QUESTION\s+OPTIONS\n/);
      expect(table).toMatch(
        new RegExp(
          `${id}\\s+question\\s+(just now|\\d+[smhd])\\s+3\\s+bot-1\\s+Refund or replace\\?\\s+refund \\| replace`,
        ),
      );

      // An option not offered is the service's refusal; the agent may not answer at all.
      expect((await runCli(['answer', id, '--option', 'neither'], person)).code).toBe(1);
      expect((await runCli(['answer', id, '--option', 'refund'], bot)).code).toBe(1);
      expect((await runCli(['answer', id], person)).code).toBe(2);
      const answered = await runCliJson(['answer', id, '--option', 'refund', 'They asked twice.'], person);
      ok(answered.run);
      expect(answered.body).toMatchObject({
        status: 'answered',
        option: 'refund',
        answer: 'They asked twice.',
        answered_by: 'ada',
      });

      const asked = await waiting;
      ok(asked.run);
      expect(asked.body).toMatchObject({ status: 'answered', option: 'refund', answered_by: 'ada' });
      expect((await runCliJson(['work', 'show', id], bot)).body).toMatchObject({
        status: 'in_progress',
        assigned_agent: 'bot-1',
      });
      // Answered: no longer in the inbox, listed under --answered.
      expect(
        (await runCliJson(['inbox'], person)).body.map((entry: { work_item_id: string }) => entry.work_item_id),
      ).not.toContain(id);
      expect((await runCliJson(['inbox', '--answered'], person)).body[0]).toMatchObject({
        work_item_id: id,
        option: 'refund',
      });
      // Nothing left to answer on that item.
      const none = await runCli(['answer', id, 'again'], person);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('has no open question');
    },
    SLOW,
  );

  it(
    'ask without --wait prints the open question; a free-text answer; the question in human form',
    async () => {
      const id = await claimed('cli_free');
      const open = ok(await runCli(['ask', id, 'Which customer is this for?'], bot)).stdout;
      expect(open).toMatch(/^question\s+[0-9a-f-]{36}\n/);
      expect(open).toMatch(/\nstatus\s+open\n/);
      expect(open).toMatch(/\n\nWhich customer is this for\?\n$/);
      const answered = ok(await runCli(['answer', id, 'Acme Ltd.'], person)).stdout;
      expect(answered).toMatch(/\nanswer\s+Acme Ltd\.\n/);
      expect(answered).toMatch(/\nanswered\s+(just now|\d+s ago) by ada\n/);
    },
    SLOW,
  );

  it(
    'review: a returned item goes back to its agent; an approved one completes; an agent cannot approve',
    async () => {
      const project = await runCliJson(['project', 'create', `Reviewed ${kind}`], admin);
      ok(project.run);
      const patched = await fetch(`${work.url}/projects/${project.body.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${ADMIN_SECRET}`, 'content-type': 'application/json' },
        body: JSON.stringify({ review_required: true }),
      });
      expect(patched.status).toBe(200);
      const id = await claimed('cli_review', ['--project', project.body.id]);

      const sent = await runCliJson(['work', 'complete', id, '--notes', 'Fixed it'], bot);
      ok(sent.run);
      expect(sent.body).toMatchObject({ status: 'blocked' });
      expect(ok(await runCli(['inbox'], person)).stdout).toMatch(new RegExp(`${id}\\s+review\\s`));

      expect((await runCli(['review', id, '--approve'], bot)).code).toBe(1);
      expect((await runCli(['review', id], person)).code).toBe(2);
      expect((await runCli(['review', id, '--approve', '--return', 'why'], person)).code).toBe(2);
      // `answer` on a review is allowed (it is a question with options); `review` on a plain question is not.
      const returned = await runCliJson(['review', id, '--return', 'Add a test.'], person);
      ok(returned.run);
      expect(returned.body).toMatchObject({ kind: 'review', option: 'return', answer: 'Add a test.' });
      expect((await runCliJson(['work', 'show', id], bot)).body.status).toBe('in_progress');

      ok(await runCli(['work', 'complete', id], bot));
      const approved = await runCliJson(['review', id, '--approve'], person);
      ok(approved.run);
      expect(approved.body).toMatchObject({ option: 'approve', answered_by: 'ada' });
      expect((await runCliJson(['work', 'show', id], bot)).body).toMatchObject({
        status: 'completed',
        outcome: 'success',
      });

      const plain = await claimed('cli_not_review');
      ok(await runCli(['ask', plain, 'A plain question?'], bot));
      const wrong = await runCli(['review', plain, '--approve'], person);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('not a review');
    },
    SLOW,
  );

  it(
    'inbox --overdue lists only the questions past their deadline, and the table marks them',
    async () => {
      const late = await claimed('cli_overdue');
      const timely = await claimed('cli_overdue');
      for (const id of [late, timely]) ok(await runCli(['ask', id, `Is ${id.slice(0, 8)} late?`], bot));
      // A deadline already passed, as a project's answer_within_s sets it, without waiting for one.
      const db = await openTestDatabase(database);
      try {
        await db.kysely
          .updateTable('work_questions')
          .set({ due_at: '2026-01-01T00:00:00.000Z' })
          .where('work_item_id', '=', late)
          .where('status', '=', 'open')
          .execute();
      } finally {
        await db.close();
      }
      const overdue = await runCliJson(['inbox', '--overdue'], person);
      ok(overdue.run);
      const ids = overdue.body.map((entry: { work_item_id: string }) => entry.work_item_id);
      expect(ids).toContain(late);
      expect(ids).not.toContain(timely);
      expect(overdue.body.every((entry: { overdue: boolean }) => entry.overdue)).toBe(true);
      const table = ok(await runCli(['inbox'], person)).stdout;
      expect(table).toMatch(new RegExp(`${late}\\s+question\\s+(just now|\\d+[smhd]) overdue\\s`));
      expect(table).not.toMatch(new RegExp(`${timely}.*overdue`));
    },
    SLOW,
  );
});
