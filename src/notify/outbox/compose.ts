import type { MailConfig } from '../../shared/config/mail.js';
import type { Question } from '../../conversation/contract.js';
import type { WorkItemRow } from '../../work/index.js';
import type { MailTokens } from './ports.js';

// The email of a question or a review, for one person: subject, text and HTML parts, and the
// headers that thread it and carry the reply token. Pure: the outbox row stores what it returns,
// so a retry on another instance sends the same mail. Everything from the item is escaped.

const SUBJECT_QUESTION_CHARS = 80;
const DESCRIPTION_CHARS = 2_000;
const MAX_REFERENCES = 20;

export interface QuestionMailInput {
  notificationId: string;
  question: Question;
  item: WorkItemRow;
  /** The item's project's name, when it has one. */
  project: string | null;
  person: string;
  mail: Pick<MailConfig, 'fromDomain' | 'publicUrl' | 'replyAddress'>;
  /** null: no answer links and no reply address (nothing signs them). */
  tokens: MailTokens | null;
  /** An escalation: the subject and the first line say the question is overdue. */
  overdue?: boolean;
}

export interface ComposedMail {
  message_id: string;
  subject: string;
  text_body: string;
  html_body: string;
  /** Reply-To, In-Reply-To, References: what is set of them. */
  headers: Record<string, string>;
}

/** Text cut to `max` characters on one line, with an ellipsis when cut. */
export function cutLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The Message-ID the desk makes for a question and one person's mail of it. */
export function questionMessageId(questionId: string, notificationId: string, domain: string): string {
  return `<q.${questionId}.${notificationId}@${domain}>`;
}

/**
 * The Message-IDs of the email thread the item came from (intake keeps them in its payload:
 * `email.message_id`, `email.in_reply_to`, `thread[].message_id`), oldest first; only real ids,
 * not the hashes intake names a message without one by.
 */
export function sourceThread(payload: string | null): string[] {
  if (payload === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null) return [];
  const { email, thread } = parsed as { email?: unknown; thread?: unknown };
  const ids: unknown[] = [];
  if (typeof email === 'object' && email !== null) {
    const ref = email as { in_reply_to?: unknown; message_id?: unknown };
    ids.push(ref.in_reply_to, ref.message_id);
  }
  if (Array.isArray(thread))
    for (const entry of thread) ids.push((entry as { message_id?: unknown } | null)?.message_id);
  const seen = new Set<string>();
  for (const id of ids) {
    if (typeof id === 'string' && /^<[^<>\s]+@[^<>\s]+>$/.test(id)) seen.add(id);
  }
  return [...seen].slice(-MAX_REFERENCES);
}

interface Link {
  label: string;
  url: string;
}

export function composeQuestionMail(input: QuestionMailInput): ComposedMail {
  const { question, item, mail, tokens, person, notificationId } = input;
  const agent = question.asked_by;
  const review = question.kind === 'review';
  const tag = input.overdue ? '[agentdesk] Overdue:' : '[agentdesk]';
  const subject = review
    ? `${tag} ${cutLine(agent, 60)} asks for a review: ${cutLine(item.description, SUBJECT_QUESTION_CHARS)}`
    : `${tag} ${cutLine(agent, 60)} asks: ${cutLine(question.question, SUBJECT_QUESTION_CHARS)}`;
  const overdueLine = input.overdue
    ? `Overdue: open since ${question.asked_at}, unanswered past ${question.due_at ?? 'its deadline'}. You are told because the project escalates to you.`
    : null;
  const base = mail.publicUrl;
  const answerToken = base !== null && tokens !== null ? tokens.answerToken(question.id, person) : null;
  const answerUrl = answerToken === null ? null : `${base}/answer/${encodeURIComponent(answerToken)}`;
  const itemUrl = base === null ? null : `${base}/#/items/${encodeURIComponent(item.id)}`;
  const options: Link[] = (question.options ?? []).map((label, index) => ({
    label,
    url: answerUrl === null ? '' : `${answerUrl}?option=${index + 1}`,
  }));
  const description =
    item.description.length > DESCRIPTION_CHARS
      ? `${item.description.slice(0, DESCRIPTION_CHARS - 1)}…`
      : item.description;
  const facts: [string, string][] = [
    ['Type', item.type],
    ['Project', input.project ?? '(none)'],
    ['Priority', String(item.priority)],
  ];

  const text = [
    ...(overdueLine ? [overdueLine, ''] : []),
    review ? `${agent} asks you to review its work:` : `${agent} asks:`,
    '',
    question.question,
    '',
    ...(options.length > 0
      ? [
          'Options (reply with one of them, or its number):',
          ...options.map((option, index) => `  ${index + 1}. ${option.label}${option.url ? `  ${option.url}` : ''}`),
          '',
        ]
      : []),
    'The work item:',
    `  ${description.replace(/\n/g, '\n  ')}`,
    ...facts.map(([label, value]) => `  ${label}: ${value}`),
    ...(itemUrl ? [`  On the desk: ${itemUrl}`] : []),
    '',
    ...(answerUrl ? [`Answer on the desk: ${answerUrl}`] : []),
    ...(mail.replyAddress !== null && tokens !== null ? ['Or reply to this email: your reply is the answer.'] : []),
  ].join('\n');

  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">',
    overdueLine ? `<p><strong>${escapeHtml(overdueLine)}</strong></p>` : '',
    `<p>${escapeHtml(review ? `${agent} asks you to review its work:` : `${agent} asks:`)}</p>`,
    `<blockquote style="white-space:pre-wrap">${escapeHtml(question.question)}</blockquote>`,
    options.length > 0
      ? `<p>${options
          .map((option) =>
            option.url
              ? `<a href="${escapeHtml(option.url)}" style="display:inline-block;padding:6px 12px;margin:2px;border:1px solid #888;border-radius:4px;text-decoration:none">${escapeHtml(option.label)}</a>`
              : `<span style="display:inline-block;padding:6px 12px;margin:2px;border:1px solid #888;border-radius:4px">${escapeHtml(option.label)}</span>`,
          )
          .join(' ')}</p>`
      : '',
    '<h3>The work item</h3>',
    `<p style="white-space:pre-wrap">${escapeHtml(description)}</p>`,
    `<table>${facts.map(([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`,
    itemUrl ? `<p><a href="${escapeHtml(itemUrl)}">Open the item on the desk</a></p>` : '',
    answerUrl ? `<p><a href="${escapeHtml(answerUrl)}">Answer on the desk</a></p>` : '',
    mail.replyAddress !== null && tokens !== null ? '<p>Or reply to this email: your reply is the answer.</p>' : '',
    '</body></html>',
  ]
    .filter(Boolean)
    .join('\n');

  const headers: Record<string, string> = {};
  if (mail.replyAddress !== null && tokens !== null) {
    headers['Reply-To'] = mail.replyAddress.replace('{token}', tokens.replyToken(notificationId));
  }
  const thread = sourceThread(item.payload);
  if (thread.length > 0) {
    headers['In-Reply-To'] = thread.at(-1)!;
    headers.References = thread.join(' ');
  }
  return {
    message_id: questionMessageId(question.id, notificationId, mail.fromDomain ?? 'agentdesk.invalid'),
    subject,
    text_body: text,
    html_body: html,
    headers,
  };
}
