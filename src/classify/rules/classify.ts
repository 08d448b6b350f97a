// The offline classifier, and the one entry point of this folder: deterministic, no network,
// and honest about what it saw. It reads English, German, Spanish and French (language.ts),
// finds signals (signals.ts), scores each category from them (score.ts) and fills the details
// a reviewer needs to act on the verdict.

import type { Category, Priority } from '../categories.js';
import type { Email } from '../normalize.js';
import type { ModelAnswer } from '../llm/answer.js';
import { extractAttachments, extractOrganizations, extractPeople } from './extract.js';
import { COMPILED, hasWords, type Language } from './lexicon.js';
import { isAutomated, PRECEDENCE, scoreCategories } from './score.js';
import { detectSignals, has, signalList, type Signals } from './signals.js';

/** Also the default model name of the `rules` provider (DEFAULT_MODELS in shared/config.ts). */
export const RULES_MODEL = 'rules-v2';

const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', de: 'German', es: 'Spanish', fr: 'French' };

const TASK_MAX = 120;
const TITLE_MAX = 80;
/** An amount in any of our languages' notations: "$40", "€ 12", "89,40 €", "45,90 EUR". */
const MONEY = /[$€£]\s?\d|\d\s?(?:[$€£]|eur\b|usd\b)/i;

export function classifyWithRules(email: Email): ModelAnswer {
  const signals = detectSignals(email);
  const scores = scoreCategories(signals);
  const ranked = [...PRECEDENCE].sort((a, b) => scores[b] - scores[a] || PRECEDENCE.indexOf(a) - PRECEDENCE.indexOf(b));
  const best = scores[ranked[0]!];
  const category: Category = best > 0 ? ranked[0]! : isAutomated(signals) ? 'notification' : 'fyi';
  const runnerUp = scores[ranked[1]!];

  const { deadline } = signals;
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
    reasoning: `Rules found ${sourceSignals.length > 0 ? sourceSignals.join(', ') : 'no strong signal'} in ${article(languageName(signals))} ${languageName(signals)} message${sender ? ` from ${sender}` : ''}, which points to ${category}.`,
    confidence: confidenceOf(best, runnerUp),
    details: {
      summary: summarize(email),
      suggested_title: task ? clip(task, TITLE_MAX) : null,
      suggested_notes: notesFor(email, category, signals, sourceSignals),
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

function decidePriority(category: Category, needsAction: boolean, signals: Signals, deadline: string | null): Priority {
  if (category === 'spam' || category === 'newsletter' || category === 'marketing') return 'low';
  const soon = deadline !== null && signals.languages.some((language) => hasWords(COMPILED[language].soon, deadline));
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
    (sentence) => signals.requests.includes(sentence) || (signals.deadline !== null && sentence.includes(signals.deadline)) || MONEY.test(sentence),
  );
  const points = (important.length > 0 ? important : signals.sentences).slice(0, 3).map((sentence) => clip(sentence, 200));
  if (signals.imitated_brands.length > 0) points.unshift(`The sender or a link imitates ${signals.imitated_brands.join(', ')} on a domain the brand does not own.`);
  return points;
}

function summarize(email: Email): string | null {
  const first = email.body.text.split(/\n+/).map((line) => line.trim()).filter((line) => /\p{L}{2}/u.test(line));
  const opening = first.slice(0, 2).join(' ');
  if (opening) return clip(opening, 200);
  return email.subject || null;
}

function notesFor(email: Email, category: Category, signals: Signals, names: readonly string[]): string {
  const lines = [
    email.from ? `From: ${email.from.name ? `${email.from.name} <${email.from.address ?? ''}>` : email.from.address}` : null,
    email.subject ? `Subject: ${email.subject}` : null,
    `Classified offline as ${category} by ${RULES_MODEL}, read as ${signals.languages.map((language) => LANGUAGE_NAMES[language]).join(' and ')}.`,
    names.length > 0 ? `Signals: ${names.join(', ')}` : 'Signals: none',
    signals.deadline ? `Deadline: ${signals.deadline}` : null,
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

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}
