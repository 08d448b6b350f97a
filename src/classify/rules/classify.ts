// The offline classifier and the one entry point of this folder: deterministic, no network, honest about what
// it saw. It reads the languages (language.ts), finds signals (signals.ts), scores the categories (score.ts)
// and fills the details a reviewer needs to act on the verdict.

import type { Category, Priority } from '../categories.js';
import type { Email } from '../../email/index.js';
import type { ModelAnswer } from '../llm/answer.js';
import { extractAttachments, extractOrganizations, extractPeople } from './extract.js';
import { dayOfDate, dayOfTimestamp, resolveDueDate, workingDaysBetween, type Day, type DueDate } from './due-date.js';
import type { Language } from './lexicon.js';
import { isAutomated, PRECEDENCE, scoreCategories } from './score.js';
import { detectSignals, has, signalList, type Signals } from './signals.js';
import { describeTask } from './task.js';
import { DEFAULT_MODELS } from '../../shared/config/config.js';

/**
 * The `rules` provider's model name, part of the dedupe scope: v3 writes ISO deadlines and new
 * task descriptions, so answers stored by v2 are not served for it.
 */
export const RULES_MODEL = DEFAULT_MODELS.rules;

const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', de: 'German', es: 'Spanish', fr: 'French' };

const TITLE_MAX = 80;
/** Due this many working days after the email was sent, or sooner, makes a task urgent. */
const SOON_WORKING_DAYS = 2;
/** An amount in any of our languages' notations: "$40", "€ 12", "89,40 €", "45,90 EUR". */
const MONEY = /[$€£]\s?\d|\d\s?(?:[$€£]|eur\b|usd\b)/i;

/**
 * `now` stands in for the day an email was sent when it carries no date (the simplified shape):
 * relative deadlines ("by Friday") are counted from it.
 */
export function classifyWithRules(email: Email, now: Date = new Date()): ModelAnswer {
  const signals = detectSignals(email);
  const scores = scoreCategories(signals);
  const ranked = [...PRECEDENCE].sort((a, b) => scores[b] - scores[a] || PRECEDENCE.indexOf(a) - PRECEDENCE.indexOf(b));
  const best = scores[ranked[0]!];
  const category: Category = best > 0 ? ranked[0]! : isAutomated(signals) ? 'notification' : 'fyi';
  const runnerUp = scores[ranked[1]!];

  const sent = dayOfTimestamp(email.sent_at) ?? dayOfTimestamp(email.received_at) ?? dayOfDate(now);
  const due =
    signals.deadline === null ? null : resolveDueDate(signals.deadline, signals.deadline_language ?? 'en', sent);
  const deadline = due?.iso ?? null;
  const needsAction = decideNeedsAction(category, signals);
  const priority = decidePriority(category, needsAction, signals, due, sent);
  const task = needsAction ? taskFor(category, email, signals) : null;
  const sourceSignals = signalList(signals);
  const sender = email.from?.name ?? email.from?.address ?? null;

  return {
    needs_action: needsAction,
    category,
    priority,
    task_description: task,
    reasoning: `Rules found ${sourceSignals.length > 0 ? sourceSignals.join(', ') : 'no strong signal'} in ${article(languageName(signals))} ${languageName(signals)} message${sender ? ` from ${sender}` : ''}, which points to ${category}.`,
    confidence: confidenceOf(best, runnerUp),
    details: {
      summary: summarize(email),
      suggested_title: task ? clip(task, TITLE_MAX) : null,
      suggested_notes: notesFor(email, category, signals, sourceSignals, deadline),
      deadline,
      people: extractPeople(email),
      organizations: extractOrganizations(email),
      attachments_referenced: extractAttachments(`${email.subject}\n${email.body.text}`),
      next_steps: nextSteps(category, needsAction, email, deadline),
      key_points: keyPoints(signals),
      source_signals: sourceSignals,
    },
  };
}

function decideNeedsAction(category: Category, signals: Signals): boolean {
  switch (category) {
    case 'action_required':
    case 'meeting':
      return true;
    case 'transactional':
      return has(signals, 'payment_due');
    case 'notification':
      return has(signals, 'direct_request') && has(signals, 'deadline');
    case 'fyi':
    case 'newsletter':
    case 'marketing':
    case 'spam':
      return false;
    default: {
      const unreachable: never = category;
      return unreachable;
    }
  }
}

/**
 * Urgent (high) when an action is due within two working days of the email, already late,
 * called urgent, or about something down, broken, blocked or insecure; an action the sender
 * says can wait ("no rush") is low, unless it is due soon; any other action is medium; what
 * needs none is low, unless the reader flagged it. "Not urgent" holds the word: the softener wins.
 */
function decidePriority(
  category: Category,
  needsAction: boolean,
  signals: Signals,
  due: DueDate | null,
  sent: Day,
): Priority {
  if (category === 'spam' || category === 'newsletter' || category === 'marketing') return 'low';
  const late = has(signals, 'overdue') || (due !== null && due.day < sent);
  const soon = due !== null && workingDaysBetween(sent, due.day) <= SOON_WORKING_DAYS;
  const softened = has(signals, 'softener_wording');
  const pressing =
    has(signals, 'high_importance') ||
    (!softened && (has(signals, 'urgent_wording') || has(signals, 'impact_wording')));
  if (needsAction && (late || soon || pressing)) return 'high';
  if (needsAction && softened && !has(signals, 'flagged')) return 'low';
  if (needsAction || has(signals, 'flagged')) return 'medium';
  return 'low';
}

function taskFor(category: Category, email: Email, signals: Signals): string {
  const language: Language = signals.languages[0] ?? 'en';
  const sender = email.from?.name ?? email.from?.address ?? null;
  // An approval or payment is the request to describe, even after a question about something else.
  const request =
    signals.requests.find((sentence) => signals.approvals.includes(sentence)) ?? signals.requests[0] ?? null;
  const kind =
    category === 'meeting'
      ? has(signals, 'meeting_scheduling')
        ? 'meeting_scheduling'
        : 'meeting_invitation'
      : category === 'transactional'
        ? 'payment'
        : 'request';
  return describeTask({
    language,
    sender,
    request: kind === 'request' || kind === 'payment' ? request : null,
    kind,
    subject: email.subject,
  });
}

function nextSteps(category: Category, needsAction: boolean, email: Email, deadline: string | null): string[] {
  if (!needsAction) return [];
  const steps: string[] = [];
  const sender = email.from?.name ?? email.from?.address;
  if (category === 'meeting') steps.push('Accept, decline or propose another time');
  else if (category === 'transactional') steps.push('Check the amount and pay it');
  else steps.push(sender ? `Reply to ${sender}` : 'Reply to the sender');
  if (deadline) steps.push(`Do it before the deadline: ${deadline}`);
  return steps;
}

function keyPoints(signals: Signals): string[] {
  const important = signals.sentences.filter(
    (sentence) =>
      signals.requests.includes(sentence) ||
      (signals.deadline !== null && sentence.includes(signals.deadline)) ||
      MONEY.test(sentence),
  );
  const points = (important.length > 0 ? important : signals.sentences)
    .slice(0, 3)
    .map((sentence) => clip(sentence, 200));
  if (signals.imitated_brands.length > 0)
    points.unshift(
      `The sender or a link imitates ${signals.imitated_brands.join(', ')} on a domain the brand does not own.`,
    );
  return points;
}

function summarize(email: Email): string | null {
  const first = email.body.text
    .split(/\n+/)
    .map((line) => line.trim())
    .filter((line) => /\p{L}{2}/u.test(line));
  const opening = first.slice(0, 2).join(' ');
  if (opening) return clip(opening, 200);
  return email.subject || null;
}

function notesFor(
  email: Email,
  category: Category,
  signals: Signals,
  names: readonly string[],
  deadline: string | null,
): string {
  const lines = [
    email.from
      ? `From: ${email.from.name ? `${email.from.name} <${email.from.address ?? ''}>` : email.from.address}`
      : null,
    email.subject ? `Subject: ${email.subject}` : null,
    `Classified offline as ${category} by ${RULES_MODEL}, read as ${signals.languages.map((language) => LANGUAGE_NAMES[language]).join(' and ')}.`,
    names.length > 0 ? `Signals: ${names.join(', ')}` : 'Signals: none',
    signals.deadline ? `Deadline: ${signals.deadline}${deadline ? ` (${deadline})` : ''}` : null,
  ];
  return lines.filter((line): line is string => line !== null).join('\n');
}

/** Clear winners get up to 0.85; the rules never claim the certainty of a model. */
function confidenceOf(best: number, runnerUp: number): number {
  if (best <= 0) return 0.3;
  const margin = Math.min(best - runnerUp, 6);
  return Math.round(Math.min(0.85, 0.45 + 0.04 * Math.min(best, 6) + 0.03 * margin) * 100) / 100;
}

function languageName(signals: Signals): string {
  return LANGUAGE_NAMES[signals.languages[0] ?? 'en'];
}

function article(word: string): string {
  return /^[AEIOU]/.test(word) ? 'an' : 'a';
}

/** At most `max` characters, cut between words (a single overlong word is cut where it must). */
function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const head = flat.slice(0, max);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head.slice(0, max - 1)).replace(/[\s,;:]+$/u, '')}…`;
}
