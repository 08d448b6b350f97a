// The body a Slack-compatible incoming webhook shows: one line of text for the notification, and Block Kit
// blocks (the event in a sentence, a question's options, the item's type, project and priority, its link).
// Everything taken from an event is escaped, so a description cannot ping a channel or forge a link.

export interface SlackEvent {
  type: string;
  timestamp: string;
  data: unknown;
}

export interface SlackBody {
  text: string;
  blocks: unknown[];
}

/** What the event does not carry but the sender may know. */
export interface SlackExtras {
  /** The item's or project's project name; the context shows the id without it. */
  project_name?: string | null;
}

/** Slack refuses a section whose text passes its limit: each field is cut well before it. */
const FIELD_LIMIT = 1_000;
const OPTIONS_SHOWN = 10;
const OPTION_LIMIT = 100;

/** The three characters Slack's mrkdwn reads as control characters: `<!here>` and `<url|label>` start with one. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

type Fields = Readonly<Record<string, unknown>>;

const fieldsOf = (data: unknown): Fields =>
  typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Fields) : {};

function text(fields: Fields, key: string): string | null {
  const value = fields[key];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** Cut after escaping, so the limit holds for what is sent, and never inside an entity. */
function cut(escaped: string, limit: number): string {
  if (escaped.length <= limit) return escaped;
  return `${escaped.slice(0, limit - 1).replace(/&[a-z]*$/, '')}…`;
}

/** A field from the event, escaped and cut to a length a message can show. */
const shown = (value: string, limit = FIELD_LIMIT): string => cut(escapeMrkdwn(value), limit);

/** Text as a quotation: Slack quotes line by line. */
const quoted = (value: string, limit = FIELD_LIMIT): string =>
  cut(
    escapeMrkdwn(value)
      .split('\n')
      .map((line) => `>${line}`)
      .join('\n'),
    limit,
  );

const actorName = (fields: Fields): string | null => text(fieldsOf(fields.actor), 'name');

/** The UI's page for an item (its hash route), as the notification mails link it. */
function itemLink(publicUrl: string | null, id: string | null): string | null {
  if (publicUrl === null || id === null) return null;
  return `${publicUrl.replace(/\/+$/, '')}/#/items/${encodeURIComponent(id)}`;
}

const link = (url: string, label: string): string => `<${escapeMrkdwn(url)}|${label}>`;

const STATUS_WORDS: Readonly<Record<string, string>> = {
  'work.dispatched': 'dispatched',
  'work.started': 'started',
  'work.blocked': 'blocked',
  'work.completed': 'completed',
  'work.failed': 'failed',
  'work.cancelled': 'cancelled',
  'work.queued': 'back in the queue',
};

interface Message {
  /** The first line, also the notification's text. */
  headline: string;
  /** Lines under it. */
  body: string[];
  itemId: string | null;
}

function itemMessage(type: string, fields: Fields): Message {
  const description = text(fields, 'description');
  const what = description === null ? 'A work item' : `“${shown(description, 200)}”`;
  const by = actorName(fields);
  const byText = by === null ? '' : ` by ${shown(by, 100)}`;
  const status = text(fields, 'status');
  const agent = text(fields, 'assigned_agent');
  const body: string[] = [];
  let headline: string;
  if (type === 'work.created') headline = `New work item${byText}: ${what}`;
  else if (Object.hasOwn(STATUS_WORDS, type)) headline = `${what} ${STATUS_WORDS[type]}${byText}`;
  else headline = `${what} was updated${byText}`;
  if (status !== null && type === 'work.updated') body.push(`Status: *${shown(status, 40)}*`);
  if (agent !== null) body.push(`Agent: ${shown(agent, 100)}`);
  const notes = text(fields, 'notes');
  if (notes !== null && (type === 'work.completed' || type === 'work.failed' || status === 'failed'))
    body.push(`Notes:\n${quoted(notes)}`);
  return { headline, body, itemId: text(fields, 'id') };
}

function questionMessage(type: string, fields: Fields): Message {
  const question = text(fields, 'question') ?? '';
  const asker = shown(text(fields, 'asked_by') ?? 'someone', 100);
  const body = [quoted(question)];
  let headline: string;
  if (type === 'question.asked') {
    headline = fields.kind === 'review' ? `${asker} asks for a review` : `${asker} asks a question`;
    const options = Array.isArray(fields.options)
      ? fields.options.filter((option): option is string => typeof option === 'string')
      : [];
    if (options.length > 0) {
      body.push(
        options
          .slice(0, OPTIONS_SHOWN)
          .map((option) => `• ${shown(option, OPTION_LIMIT)}`)
          .join('\n'),
      );
      if (options.length > OPTIONS_SHOWN) body.push(`…and ${options.length - OPTIONS_SHOWN} more`);
    }
    const due = text(fields, 'due_at');
    if (due !== null) body.push(`Answer by ${shown(due, 40)}`);
  } else if (type === 'question.answered') {
    headline = `${shown(text(fields, 'answered_by') ?? 'someone', 100)} answered ${asker}`;
    const answer = text(fields, 'option') ?? text(fields, 'answer');
    if (answer !== null) body.push(`Answer:\n${quoted(answer)}`);
  } else {
    headline = `${asker}'s question no longer needs an answer: its item is closed`;
  }
  return { headline, body, itemId: text(fields, 'work_item_id') };
}

function commentMessage(fields: Fields): Message {
  const author = shown(text(fields, 'author') ?? 'someone', 100);
  const kind = text(fields, 'kind');
  const headline = kind === 'note' || kind === null ? `${author} commented` : `${author} added a ${shown(kind, 40)}`;
  return { headline, body: [quoted(text(fields, 'body') ?? '')], itemId: text(fields, 'work_item_id') };
}

function projectMessage(type: string, fields: Fields): Message {
  const name = shown(text(fields, 'name') ?? 'A project', 200);
  return {
    headline: `Project “${name}” ${type === 'project.created' ? 'created' : 'updated'}`,
    body: [],
    itemId: null,
  };
}

function message(type: string, fields: Fields): Message {
  if (type === 'work.deleted') {
    const by = actorName(fields);
    return { headline: `A work item was deleted${by === null ? '' : ` by ${shown(by, 100)}`}`, body: [], itemId: null };
  }
  if (type.startsWith('work.') && type !== 'work.commented') return itemMessage(type, fields);
  if (type === 'work.commented') return commentMessage(fields);
  if (type.startsWith('question.')) return questionMessage(type, fields);
  if (type === 'project.created' || type === 'project.updated') return projectMessage(type, fields);
  if (type === 'webhook.test')
    return { headline: 'A test event from agentdesk: this webhook works', body: [], itemId: null };
  if (type === 'webhook.disabled') {
    const url = text(fields, 'url');
    const reason = text(fields, 'disabled_reason') ?? text(fields, 'reason');
    return {
      headline: 'A webhook was disabled',
      body: [
        url === null ? null : `URL: ${shown(url, 300)}`,
        reason === null ? null : `Why: ${shown(reason, 200)}`,
      ].filter((line): line is string => line !== null),
      itemId: null,
    };
  }
  return { headline: `agentdesk: ${shown(type, 100)}`, body: [], itemId: null };
}

/** The item's type, project and priority (and agent), as far as the event carries them. */
function context(type: string, fields: Fields, extras: SlackExtras): string[] {
  if (type.startsWith('project.') || type.startsWith('webhook.') || type === 'work.deleted') return [];
  const parts: string[] = [];
  const itemType = text(fields, 'type');
  if (itemType !== null) parts.push(`Type: *${shown(itemType, 100)}*`);
  const project = extras.project_name ?? text(fields, 'project_id');
  if (project !== null) parts.push(`Project: ${shown(project, 200)}`);
  if (typeof fields.priority === 'number') parts.push(`Priority: P${fields.priority}`);
  return parts;
}

/**
 * A Slack incoming-webhook body for one event, as the event stream carries it. `publicUrl` (PUBLIC_URL)
 * adds a link to the item; without it the message has none.
 */
export function slackBody(event: SlackEvent, publicUrl: string | null, extras: SlackExtras = {}): SlackBody {
  const fields = fieldsOf(event.data);
  const { headline, body, itemId } = message(event.type, fields);
  const url = itemLink(publicUrl, itemId);
  const lines = [`*${headline}*`, ...body];
  if (url !== null) lines.push(link(url, 'Open on the desk'));
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text: lines.join('\n') } }];
  const parts = context(event.type, fields, extras);
  if (parts.length > 0) {
    blocks.push({ type: 'context', elements: parts.map((part) => ({ type: 'mrkdwn', text: part })) });
  }
  return { text: headline, blocks };
}
