import type { MailConfig } from '../../shared/config/mail.js';
import { type ComposedMail, cutLine, escapeHtml } from '../outbox/compose.js';
import type { MailTokens } from '../outbox/ports.js';

// The digest of one person for one day: what waits for them, oldest first, each with its answer
// link and its desk link. Pure, like the question's mail; everything from the items is escaped.
// No Reply-To: a reply to a digest could not say which question it answers.

const QUESTION_CHARS = 300;
const DESCRIPTION_CHARS = 200;

export interface DigestEntry {
  question_id: string;
  kind: 'question' | 'review';
  asked_by: string;
  question: string;
  asked_at: string;
  overdue: boolean;
  item_id: string;
  item_description: string;
  project: string | null;
}

export interface DigestMailInput {
  notificationId: string;
  person: string;
  /** The person's local date of the digest, 'YYYY-MM-DD'. */
  localDate: string;
  /** Oldest first. */
  entries: readonly DigestEntry[];
  mail: Pick<MailConfig, 'fromDomain' | 'publicUrl'>;
  tokens: MailTokens | null;
}

export function digestMessageId(notificationId: string, domain: string): string {
  return `<digest.${notificationId}@${domain}>`;
}

export function composeDigestMail({
  notificationId,
  person,
  localDate,
  entries,
  mail,
  tokens,
}: DigestMailInput): ComposedMail {
  const count = entries.length;
  const subject = `[agentdesk] ${count} ${count === 1 ? 'question waits' : 'questions wait'} for you (${localDate})`;
  const base = mail.publicUrl;
  const lines = entries.map((entry, index) => {
    const token = base !== null && tokens !== null ? tokens.answerToken(entry.question_id, person) : null;
    return {
      entry,
      number: index + 1,
      heading: `${entry.asked_by} ${entry.kind === 'review' ? 'asks for a review' : 'asks'}${entry.overdue ? ' (overdue)' : ''}`,
      question: cutLine(entry.question, QUESTION_CHARS),
      item: `${cutLine(entry.item_description, DESCRIPTION_CHARS)}${entry.project ? ` [${entry.project}]` : ''}`,
      answerUrl: token === null ? null : `${base}/answer/${encodeURIComponent(token)}`,
      itemUrl: base === null ? null : `${base}/#/items/${encodeURIComponent(entry.item_id)}`,
    };
  });

  const text = [
    `Waiting for you on the desk (oldest first):`,
    '',
    ...lines.flatMap((line) => [
      `${line.number}. ${line.heading}, since ${line.entry.asked_at}:`,
      `   ${line.question}`,
      `   Item: ${line.item}`,
      ...(line.answerUrl ? [`   Answer: ${line.answerUrl}`] : []),
      ...(line.itemUrl ? [`   On the desk: ${line.itemUrl}`] : []),
      '',
    ]),
    'You get this digest once a day because your profile says notify: digest.',
  ].join('\n');

  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">',
    '<p>Waiting for you on the desk (oldest first):</p>',
    '<ol>',
    ...lines.map((line) =>
      [
        '<li style="margin-bottom:1em">',
        `<div>${escapeHtml(`${line.heading}, since ${line.entry.asked_at}:`)}</div>`,
        `<blockquote style="white-space:pre-wrap;margin:4px 0 4px 1em">${escapeHtml(line.question)}</blockquote>`,
        `<div>Item: ${escapeHtml(line.item)}</div>`,
        line.answerUrl ? `<a href="${escapeHtml(line.answerUrl)}">Answer</a>` : '',
        line.itemUrl ? ` · <a href="${escapeHtml(line.itemUrl)}">Open on the desk</a>` : '',
        '</li>',
      ].join(''),
    ),
    '</ol>',
    '<p>You get this digest once a day because your profile says notify: digest.</p>',
    '</body></html>',
  ].join('\n');

  return {
    message_id: digestMessageId(notificationId, mail.fromDomain ?? 'agentdesk.invalid'),
    subject,
    text_body: text,
    html_body: html,
    headers: {},
  };
}
