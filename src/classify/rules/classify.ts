// The offline classifier: deterministic, no network, and honest about what it saw. Each
// category gets a score from the signals; the highest wins, ties going to the category that
// costs the reader most to miss.

import type { Category, Priority } from '../categories.js';
import type { Email } from '../normalize.js';
import type { ModelAnswer } from '../llm/answer.js';
import { extractAttachments, extractDeadline, extractOrganizations, extractPeople } from './extract.js';
import { count, detectSignals, has, signalList, type Signals } from './signals.js';

export const RULES_MODEL = 'rules-v1';

/** Tie-break order: what costs the reader most when missed comes first. */
const PRECEDENCE: readonly Category[] = [
  'spam',
  'meeting',
  'transactional',
  'action_required',
  'marketing',
  'newsletter',
  'notification',
  'fyi',
];

const TASK_MAX = 120;
const TITLE_MAX = 80;

export function classifyWithRules(email: Email): ModelAnswer {
  const signals = detectSignals(email);
  const scores = scoreCategories(signals);
  const ranked = [...PRECEDENCE].sort((a, b) => scores[b] - scores[a] || PRECEDENCE.indexOf(a) - PRECEDENCE.indexOf(b));
  const best = scores[ranked[0]!];
  const automated = has(signals, 'no_reply_sender') || has(signals, 'automated_sender');
  const category: Category = best > 0 ? ranked[0]! : automated ? 'notification' : 'fyi';
  const runnerUp = scores[ranked[1]!];

  const deadline = extractDeadline(`${email.subject}\n${email.body.text}`);
  const needsAction = decideNeedsAction(category, signals);
  const priority = decidePriority(category, needsAction, signals, deadline);
  const task = needsAction ? describeTask(category, email, signals, deadline) : null;
  const sourceSignals = signalList(signals);
  const sender = email.from?.name ?? email.from?.address ?? null;

  return {
    needs_action: needsAction,
    category,
    priority,
    task_description: task,
    reasoning: `Rules found ${sourceSignals.length > 0 ? sourceSignals.join(', ') : 'no strong signal'}${sender ? ` in a message from ${sender}` : ''}, which points to ${category}.`,
    confidence: confidenceOf(best, runnerUp),
    details: {
      summary: summarize(email),
      suggested_title: task ? clip(task, TITLE_MAX) : null,
      suggested_notes: notesFor(email, category, sourceSignals, deadline),
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

export function scoreCategories(signals: Signals): Record<Category, number> {
  const c = (name: Parameters<typeof count>[1]): number => count(signals, name);
  const bulk = has(signals, 'list_unsubscribe_header') || has(signals, 'unsubscribe_link') || has(signals, 'bulk_sender');
  const automated = has(signals, 'no_reply_sender') || has(signals, 'automated_sender');
  const spamWords = c('spam_wording');
  // One scammy phrase can appear in honest mail; two, or one with a diverted Reply-To, cannot.
  const spam = spamWords >= 2 || (spamWords >= 1 && has(signals, 'reply_to_mismatch')) ? 3 * spamWords + c('reply_to_mismatch') : 0;
  const request = 3 * Math.min(c('direct_request'), 2) + 2 * Math.min(c('question_to_reader'), 2);
  const action = request > 0 ? request + c('deadline') + c('urgent_wording') + c('flagged') + c('high_importance') : 0;
  return {
    spam,
    meeting: 4 * Math.min(c('meeting_invitation'), 2) + 3 * Math.min(c('meeting_scheduling'), 1),
    transactional:
      3 * Math.min(c('invoice') + c('payment_due'), 1) +
      3 * Math.min(c('receipt'), 1) +
      3 * Math.min(c('order_or_shipping'), 1) +
      2 * Math.min(c('subscription_or_trial'), 1),
    // Bulk and automated mail asks things of everyone; it rarely needs this reader.
    action_required: bulk || automated ? Math.floor(action / 2) : action,
    marketing: c('promotional_wording') >= 1 ? 2 * c('promotional_wording') + (bulk ? 1 : 0) : 0,
    newsletter: 3 * Math.min(c('newsletter_wording'), 2) + (has(signals, 'list_unsubscribe_header') ? 2 : 0) + (has(signals, 'unsubscribe_link') ? 1 : 0),
    notification: 3 * Math.min(c('automated_wording'), 2) + (automated ? 2 : 0),
    fyi: 3 * Math.min(c('fyi_wording'), 1),
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

function decidePriority(category: Category, needsAction: boolean, signals: Signals, deadline: string | null): Priority {
  if (category === 'spam' || category === 'newsletter' || category === 'marketing') return 'low';
  const soon = deadline !== null && /\b(?:today|tonight|tomorrow|eod|cob|end of (?:the )?day|asap)\b/i.test(deadline);
  if (needsAction && (soon || has(signals, 'urgent_wording') || has(signals, 'high_importance'))) return 'high';
  if (needsAction || has(signals, 'flagged')) return 'medium';
  return 'low';
}

function describeTask(category: Category, email: Email, signals: Signals, deadline: string | null): string {
  const by = deadline ? ` (${deadline})` : '';
  const subject = email.subject || 'this email';
  const sender = email.from?.name ?? email.from?.address;
  if (category === 'meeting') {
    return clip(has(signals, 'meeting_scheduling') ? `Choose a time for: ${subject}` : `Respond to the meeting invitation: ${subject}`, TASK_MAX);
  }
  if (category === 'transactional') return clip(`Pay the amount due${by}: ${subject}`, TASK_MAX);
  const request = signals.requests[0];
  if (request) return clip(`${sender ? `Reply to ${sender}: ` : ''}${request}`, TASK_MAX);
  return clip(`Follow up on: ${subject}${by}`, TASK_MAX);
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
    (sentence) => signals.requests.includes(sentence) || /\b(?:due|deadline|by|before|amount|total|\$|€|£)\b/i.test(sentence),
  );
  return (important.length > 0 ? important : signals.sentences).slice(0, 3).map((sentence) => clip(sentence, 200));
}

function summarize(email: Email): string | null {
  const first = email.body.text.split(/\n+/).map((line) => line.trim()).filter((line) => /\p{L}{2}/u.test(line));
  const opening = first.slice(0, 2).join(' ');
  if (opening) return clip(opening, 200);
  return email.subject || null;
}

function notesFor(email: Email, category: Category, signals: readonly string[], deadline: string | null): string {
  const lines = [
    email.from ? `From: ${email.from.name ? `${email.from.name} <${email.from.address ?? ''}>` : email.from.address}` : null,
    email.subject ? `Subject: ${email.subject}` : null,
    `Classified offline as ${category} by ${RULES_MODEL}.`,
    signals.length > 0 ? `Signals: ${signals.join(', ')}` : 'Signals: none',
    deadline ? `Deadline: ${deadline}` : null,
  ];
  return lines.filter((line): line is string => line !== null).join('\n');
}

/** Clear winners get up to 0.85; the rules never claim the certainty of a model. */
function confidenceOf(best: number, runnerUp: number): number {
  if (best <= 0) return 0.3;
  const margin = Math.min(best - runnerUp, 6);
  return Math.round(Math.min(0.85, 0.45 + 0.04 * Math.min(best, 6) + 0.03 * margin) * 100) / 100;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}
