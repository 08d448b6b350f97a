import type { Comment, InboxEntry, Question } from '../conversation/contract.js';
import { type Paint, oneLine, relativeTime, table } from './format.js';

// How the conversation reads in a terminal: a comment as one line, the inbox as a table, one
// question with its answer as fields.

export function commentLine(comment: Comment, paint: Paint, now = Date.now()): string {
  const links =
    comment.links.length > 0
      ? ` ${paint.dim(`(${comment.links.length} link${comment.links.length === 1 ? '' : 's'})`)}`
      : '';
  return `${comment.id}  ${paint.cyan(comment.kind)} ${paint.dim('by')} ${comment.author} ${paint.dim(relativeTime(comment.created_at, now))}${links}  ${oneLine(comment.body, 60)}\n`;
}

/** A comment in full, for reading: who and when on one line, then its text and its links. */
export function commentBlock(comment: Comment, paint: Paint, now = Date.now()): string {
  const head = `${paint.bold(comment.author)} ${paint.dim(`(${comment.role})`)} ${paint.cyan(comment.kind)} ${paint.dim(`${relativeTime(comment.created_at, now)}  ${comment.id}`)}`;
  const body = comment.body.split('\n').map((line) => `    ${line}`);
  const links = comment.links.map(
    (link) =>
      `    ${paint.dim('link')} ${link.url}${link.title ? ` ${paint.dim(`(${oneLine(link.title, 60)})`)}` : ''}`,
  );
  return [`  ${head}`, ...body, ...links].join('\n') + '\n';
}

/** Comments in the order given, a blank line between them. */
export function commentBlocks(comments: readonly Comment[], paint: Paint, now = Date.now()): string {
  if (comments.length === 0) return 'No comments.\n';
  return comments.map((comment) => commentBlock(comment, paint, now)).join('\n');
}

/** `work show`'s comments: the latest (given newest first), shown oldest first, and how to read the rest. */
export function latestCommentsText(
  latest: readonly Comment[],
  total: number,
  itemId: string,
  paint: Paint,
  now = Date.now(),
): string {
  if (total === 0) return '';
  const title =
    latest.length < total
      ? `comments (the ${latest.length} latest of ${total}; all: agentdesk work comments ${itemId})`
      : `comments (${total})`;
  return `\n${paint.bold(title)}\n${commentBlocks([...latest].reverse(), paint, now)}`;
}

function status(question: Question, paint: Paint): string {
  return question.status === 'open' ? paint.yellow('open') : paint.green('answered');
}

function answerText(question: Question): string {
  if (question.status === 'open') return '-';
  return [question.option, question.answer].filter((part) => part !== null && part !== '').join(': ');
}

export function questionTable(entries: InboxEntry[], paint: Paint, answered: boolean, now = Date.now()): string {
  if (entries.length === 0) return answered ? 'No answered questions.\n' : 'Nothing waits for a person.\n';
  const head = answered
    ? ['ITEM', 'KIND', 'ANSWERED', 'BY', 'QUESTION', 'ANSWER']
    : ['ITEM', 'KIND', 'WAITING', 'PRI', 'ASKED BY', 'QUESTION', 'OPTIONS'];
  return table(
    head,
    entries.map((entry) =>
      answered
        ? [
            entry.work_item_id,
            entry.kind,
            relativeTime(entry.answered_at, now),
            entry.answered_by ?? '-',
            oneLine(entry.question, 50),
            oneLine(answerText(entry), 40),
          ]
        : [
            entry.work_item_id,
            entry.kind === 'review' ? paint.yellow('review') : 'question',
            relativeTime(entry.asked_at, now).replace(/ ago$/, '') + (entry.overdue ? ` ${paint.red('overdue')}` : ''),
            String(entry.item.priority),
            entry.asked_by,
            oneLine(entry.question, 50),
            entry.options === null ? paint.dim('(free text)') : oneLine(entry.options.join(' | '), 40),
          ],
    ),
    paint,
  );
}

export function questionDetail(question: Question, paint: Paint, now = Date.now()): string {
  const fields: Array<[string, string]> = [
    ['question', question.id],
    ['item', question.work_item_id],
    ['kind', question.kind],
    ['status', status(question, paint)],
    ['asked', `${relativeTime(question.asked_at, now)} by ${question.asked_by}`],
  ];
  if (question.options !== null) fields.push(['options', question.options.join(' | ')]);
  if (question.to !== null) fields.push(['to', question.to.join(', ')]);
  if (question.status === 'answered') {
    fields.push(['answered', `${relativeTime(question.answered_at, now)} by ${question.answered_by ?? '-'}`]);
    if (question.option !== null) fields.push(['option', question.option]);
    if (question.answer !== null) fields.push(['answer', question.answer]);
  }
  const width = Math.max(...fields.map(([name]) => name.length));
  const lines = fields.map(([name, value]) => `${paint.bold(name.padEnd(width))}  ${value}`);
  return `${lines.join('\n')}\n\n${question.question}\n`;
}
