import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventLog } from '../../src/work/events/store/index.js';
import { type SlackEvent, escapeMrkdwn, slackBody } from '../../src/webhooks/format-slack.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { call } from '../support/http.js';

// The Slack body of each event as the desk writes it: a scripted run on SQLite, its event log read
// back, each event formatted. Text from the data is escaped, so it can neither ping nor link.

const PUBLIC_URL = 'https://desk.example.org';
const ANA = { 'x-user': 'ana' };
const BOT = { 'x-user': 'bot-1' };
const HOSTILE = '<!channel> <https://evil.example|click> & co';

interface Section {
  type: 'section';
  text: { type: 'mrkdwn'; text: string };
}
interface Context {
  type: 'context';
  elements: { type: 'mrkdwn'; text: string }[];
}

const sectionOf = (body: ReturnType<typeof slackBody>) => (body.blocks[0] as Section).text.text;
const contextOf = (body: ReturnType<typeof slackBody>) =>
  (body.blocks.find((block) => (block as Context).type === 'context') as Context | undefined)?.elements.map(
    (element) => element.text,
  ) ?? null;

/** Every mrkdwn string of a body: after taking out the item's link, no `<`, a `>` only to quote a line, `&` only in an entity. */
function expectEscaped(body: ReturnType<typeof slackBody>): void {
  const strings = [body.text, sectionOf(body), ...(contextOf(body) ?? [])].map((value) =>
    value.replace(/<https:\/\/desk\.example\.org\/[a-z]*\/?#\/items\/[0-9a-f-]+\|Open on the desk>/, ''),
  );
  for (const value of strings) {
    expect(value).not.toContain('<');
    for (const line of value.split('\n')) expect(line.slice(1)).not.toContain('>');
    expect(value.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
  }
}

describe('the Slack body of each event', () => {
  let t: TestApp;
  const events: SlackEvent[] = [];
  let itemId = '';
  let projectId = '';
  let otherId = '';

  beforeAll(async () => {
    t = await startWorkApp('sqlite');
    const project = await call(t.app, 'POST', '/projects', { name: `Billing ${HOSTILE}` }, ANA);
    projectId = project.body.id;
    const item = await call(
      t.app,
      'POST',
      '/work',
      { type: 'review', description: `Check *refund* ${HOSTILE}`, priority: 1, project_id: projectId, agent: 'bot-1' },
      ANA,
    );
    itemId = item.body.id;
    await call(t.app, 'PATCH', `/work/${itemId}`, { status: 'in_progress', agent: 'bot-1' }, BOT);
    const question = await call(
      t.app,
      'POST',
      `/work/${itemId}/questions`,
      { question: `Refund > 100 €? ${HOSTILE}`, options: ['yes', `no ${HOSTILE}`] },
      BOT,
    );
    await call(t.app, 'POST', `/work/${itemId}/questions/${question.body.id}/answer`, { option: 'yes' }, ANA);
    await call(t.app, 'POST', `/work/${itemId}/comments`, { body: `Looks fine\n${HOSTILE}` }, ANA);
    await call(
      t.app,
      'PATCH',
      `/work/${itemId}`,
      { status: 'completed', outcome: 'success', notes: `Refunded ${HOSTILE}` },
      BOT,
    );
    await call(t.app, 'PATCH', `/projects/${projectId}`, { review_required: true }, ANA);
    const other = await call(t.app, 'POST', '/work', { type: 'deploy', description: 'Ship it', agent: 'bot-2' }, ANA);
    otherId = other.body.id;
    await call(t.app, 'PATCH', `/work/${otherId}`, { status: 'in_progress', agent: 'bot-2' }, { 'x-user': 'bot-2' });
    await call(t.app, 'POST', `/work/${otherId}/questions`, { question: 'Which region?' }, { 'x-user': 'bot-2' });
    const cancelled = await call(
      t.app,
      'PATCH',
      `/work/${otherId}`,
      { status: 'failed', outcome: 'failed', notes: 'No region given' },
      ANA,
    );
    expect(cancelled.status, cancelled.text).toBe(200);
    await call(t.app, 'DELETE', `/work/${otherId}`, undefined, ANA);
    for (const stored of await createEventLog(t.database).after(0, 1_000, 10_000_000)) {
      events.push({ type: stored.type, timestamp: stored.created_at, data: JSON.parse(stored.data) });
    }
  });
  afterAll(() => t.close());

  /** The event of a type, the n-th from the end matching `where`. */
  function event(type: string, where: (data: Record<string, unknown>) => boolean = () => true): SlackEvent {
    const found = events.filter((candidate) => candidate.type === type && where(candidate.data as never)).at(-1);
    if (!found) throw new Error(`no ${type} event in ${events.map((e) => e.type).join(', ')}`);
    return found;
  }

  it('every event the run wrote makes a section, escapes what came from the data, and never throws', () => {
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        'project.created',
        'project.updated',
        'work.created',
        'work.updated',
        'work.deleted',
        'work.commented',
        'question.asked',
        'question.answered',
        'question.moot',
      ]),
    );
    for (const each of events) {
      for (const url of [PUBLIC_URL, null]) {
        const body = slackBody(each, url);
        expect((body.blocks[0] as Section).type).toBe('section');
        expect(body.text.length).toBeGreaterThan(0);
        expectEscaped(body);
        if (url === null) expect(sectionOf(body)).not.toContain('Open on the desk');
      }
    }
  });

  it('question.asked: the question, its options as a list, the link to the item, its type and project', () => {
    const body = slackBody(
      event('question.asked', (data) => data.work_item_id === itemId),
      PUBLIC_URL,
    );
    const escaped = escapeMrkdwn(HOSTILE);
    expect(body.text).toBe('bot-1 asks a question');
    expect(sectionOf(body)).toBe(
      [
        '*bot-1 asks a question*',
        `>Refund &gt; 100 €? ${escaped}`,
        `• yes\n• no ${escaped}`,
        `<${PUBLIC_URL}/#/items/${itemId}|Open on the desk>`,
      ].join('\n'),
    );
    expect(contextOf(body)).toEqual(['Type: *review*', `Project: ${projectId}`]);
    const named = slackBody(
      event('question.asked', (data) => data.work_item_id === itemId),
      PUBLIC_URL,
      {
        project_name: `Billing ${HOSTILE}`,
      },
    );
    expect(contextOf(named)).toEqual(['Type: *review*', `Project: Billing ${escaped}`]);
    // A question without options is the question alone.
    const open = slackBody(
      event('question.asked', (data) => data.work_item_id === otherId),
      null,
    );
    expect(sectionOf(open)).toBe('*bot-2 asks a question*\n>Which region?');
  });

  it('work items: created, a status change under its own name, completed with the notes, deleted', () => {
    const escaped = escapeMrkdwn(HOSTILE);
    const created = slackBody(
      event('work.created', (data) => data.id === itemId),
      PUBLIC_URL,
    );
    expect(created.text).toBe(`New work item by ana: “Check *refund* ${escaped}”`);
    expect(contextOf(created)).toEqual(['Type: *review*', `Project: ${projectId}`, 'Priority: P1']);
    expect(sectionOf(created)).toContain(`Agent: bot-1\n<${PUBLIC_URL}/#/items/${itemId}|Open on the desk>`);

    const done = event('work.updated', (data) => data.id === itemId && data.status === 'completed');
    const completed = slackBody({ ...done, type: 'work.completed' }, PUBLIC_URL);
    expect(completed.text).toBe(`“Check *refund* ${escaped}” completed by bot-1`);
    expect(sectionOf(completed)).toContain(`Notes:\n>Refunded ${escaped}`);
    const updated = slackBody(done, PUBLIC_URL);
    expect(updated.text).toBe(`“Check *refund* ${escaped}” was updated by bot-1`);
    expect(sectionOf(updated)).toContain('Status: *completed*');

    const deleted = slackBody(event('work.deleted'), PUBLIC_URL);
    expect(deleted).toEqual({ text: 'A work item was deleted by ana', blocks: [expect.anything()] });
    expect(sectionOf(deleted)).not.toContain('Open on the desk');
  });

  it('the conversation: a comment quoted line by line, an answer, a question made moot', () => {
    const escaped = escapeMrkdwn(HOSTILE);
    const comment = slackBody(
      event('work.commented', (data) => data.kind === 'note' && data.author === 'ana'),
      PUBLIC_URL,
    );
    expect(comment.text).toBe('ana commented');
    expect(sectionOf(comment)).toContain(`>Looks fine\n>${escaped}`);
    const answered = slackBody(event('question.answered'), PUBLIC_URL);
    expect(answered.text).toBe('ana answered bot-1');
    expect(sectionOf(answered)).toContain('Answer:\n>yes');
    const moot = slackBody(event('question.moot'), PUBLIC_URL);
    expect(moot.text).toBe("bot-2's question no longer needs an answer: its item is closed");
    expect(sectionOf(moot)).toContain(`<${PUBLIC_URL}/#/items/${otherId}|Open on the desk>`);
  });

  it('projects: the name, no item link, no context', () => {
    const body = slackBody(event('project.created'), PUBLIC_URL);
    expect(body).toEqual({
      text: `Project “Billing ${escapeMrkdwn(HOSTILE)}” created`,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `*Project “Billing ${escapeMrkdwn(HOSTILE)}” created*` } },
      ],
    });
    expect(slackBody(event('project.updated'), PUBLIC_URL).text).toMatch(/ updated$/);
  });

  it('stays inside a section limit with the longest question and options the API takes', () => {
    const asked = event('question.asked', (data) => data.work_item_id === itemId);
    const data = {
      ...(asked.data as object),
      question: '&\n'.repeat(2_000),
      options: Array.from({ length: 10 }, (_, n) => `${n}${'<'.repeat(199)}`),
    };
    const body = slackBody({ ...asked, data }, `${PUBLIC_URL}/${'a'.repeat(200)}`);
    expect(sectionOf(body).length).toBeLessThanOrEqual(3_000);
    expectEscaped({ ...body, blocks: body.blocks });
    expect(sectionOf(body)).not.toMatch(/&[a-z]*…/);
  });
});

describe('events the desk does not write to its log', () => {
  it('the webhook test, a disabled endpoint, an unknown type and data that is not an object', () => {
    const at = '2026-12-07T10:00:00.000Z';
    expect(slackBody({ type: 'webhook.test', timestamp: at, data: {} }, PUBLIC_URL).text).toBe(
      'A test event from agentdesk: this webhook works',
    );
    const disabled = slackBody(
      {
        type: 'webhook.disabled',
        timestamp: at,
        data: { url: 'https://hooks.example/a?b=1&c=<2>', disabled_reason: 'gone' },
      },
      PUBLIC_URL,
    );
    expect(sectionOf(disabled)).toBe(
      '*A webhook was disabled*\nURL: https://hooks.example/a?b=1&amp;c=&lt;2&gt;\nWhy: gone',
    );
    expect(slackBody({ type: 'thing.<happened>', timestamp: at, data: null }, null)).toEqual({
      text: 'agentdesk: thing.&lt;happened&gt;',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*agentdesk: thing.&lt;happened&gt;*' } }],
    });
    expect(slackBody({ type: 'question.asked', timestamp: at, data: ['x'] }, PUBLIC_URL).text).toBe(
      'someone asks a question',
    );
  });
});
