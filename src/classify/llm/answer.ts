// The model's answer: the JSON schema sent to the provider (strict-mode compatible: every
// property required, no additional properties, nullability through type arrays), our own
// validation of what comes back, and the invariants no model answer may break.

import {
  CATEGORIES,
  NEVER_ACTIONABLE,
  PRIORITIES,
  isCategory,
  isPriority,
  type Category,
  type Classification,
  type ClassificationDetails,
  type Priority,
} from '../categories.js';

/** What a model (or the rules classifier) answers; the server adds the dedupe key. */
export interface ModelAnswer {
  needs_action: boolean;
  category: Category;
  priority: Priority;
  task_description: string | null;
  reasoning: string;
  confidence: number;
  details: Omit<ClassificationDetails, 'dedupe_key'>;
}

export const ANSWER_SCHEMA_NAME = 'email_classification';

const nullableString = { type: ['string', 'null'] } as const;
const stringList = { type: 'array', items: { type: 'string' } } as const;

const DETAIL_STRING_FIELDS = ['summary', 'suggested_title', 'suggested_notes', 'deadline'] as const;
const DETAIL_LIST_FIELDS = [
  'people',
  'organizations',
  'attachments_referenced',
  'next_steps',
  'key_points',
  'source_signals',
] as const;

// Numeric bounds are left out of the schema on purpose: not every OpenAI-compatible server
// accepts `minimum`/`maximum` in strict mode. The validator enforces them.
export const ANSWER_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['needs_action', 'category', 'priority', 'task_description', 'reasoning', 'confidence', 'details'],
  properties: {
    needs_action: { type: 'boolean', description: 'Whether the reader has to do something.' },
    category: { type: 'string', enum: [...CATEGORIES] },
    priority: { type: 'string', enum: [...PRIORITIES] },
    task_description: { ...nullableString, description: 'Imperative task, or null when no action is needed.' },
    reasoning: { type: 'string', description: 'One sentence.' },
    confidence: { type: 'number', description: 'From 0.0 to 1.0.' },
    details: {
      type: 'object',
      additionalProperties: false,
      required: [...DETAIL_STRING_FIELDS, ...DETAIL_LIST_FIELDS],
      properties: {
        ...Object.fromEntries(DETAIL_STRING_FIELDS.map((field) => [field, nullableString])),
        ...Object.fromEntries(DETAIL_LIST_FIELDS.map((field) => [field, stringList])),
      },
    },
  },
} as const;

export type AnswerCheck = { ok: true; answer: ModelAnswer } | { ok: false; problems: string[] };

const LIST_ITEMS_MAX = 25;
const TEXT_MAX = 2_000;

/**
 * Checks an answer against the schema and the allowed values. Small local models sometimes
 * leave out detail fields; a missing detail becomes null or [], but a present field of the
 * wrong type, an unknown category or an out-of-range confidence rejects the whole answer.
 */
export function checkAnswer(value: unknown): AnswerCheck {
  const problems: string[] = [];
  if (!isRecord(value)) return { ok: false, problems: ['answer is not a JSON object'] };
  if (typeof value.needs_action !== 'boolean') problems.push('needs_action must be a boolean');
  if (!isCategory(value.category)) problems.push(`category must be one of ${CATEGORIES.join(', ')}`);
  if (!isPriority(value.priority)) problems.push(`priority must be one of ${PRIORITIES.join(', ')}`);
  if (value.task_description !== null && typeof value.task_description !== 'string') {
    problems.push('task_description must be a string or null');
  }
  if (typeof value.reasoning !== 'string') problems.push('reasoning must be a string');
  const { confidence } = value;
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
    problems.push('confidence must be a number from 0 to 1');
  }
  if (!isRecord(value.details)) problems.push('details must be an object');
  const details = isRecord(value.details) ? value.details : {};
  for (const field of DETAIL_STRING_FIELDS) {
    const entry = details[field];
    if (entry !== undefined && entry !== null && typeof entry !== 'string')
      problems.push(`details.${field} must be a string or null`);
  }
  for (const field of DETAIL_LIST_FIELDS) {
    const entry = details[field];
    if (entry !== undefined && (!Array.isArray(entry) || entry.some((item) => typeof item !== 'string'))) {
      problems.push(`details.${field} must be an array of strings`);
    }
  }
  if (problems.length > 0) return { ok: false, problems };

  return {
    ok: true,
    answer: {
      needs_action: value.needs_action as boolean,
      category: value.category as Category,
      priority: value.priority as Priority,
      task_description: cleanText(value.task_description),
      reasoning: (cleanText(value.reasoning) ?? '').slice(0, TEXT_MAX),
      confidence: confidence as number,
      details: {
        summary: cleanText(details.summary),
        suggested_title: cleanText(details.suggested_title),
        suggested_notes: cleanText(details.suggested_notes),
        deadline: cleanText(details.deadline),
        people: cleanList(details.people),
        organizations: cleanList(details.organizations),
        attachments_referenced: cleanList(details.attachments_referenced),
        next_steps: cleanList(details.next_steps),
        key_points: cleanList(details.key_points),
        source_signals: cleanList(details.source_signals),
      },
    },
  };
}

/**
 * Rules that hold whatever the model said: action_required means action; newsletters,
 * marketing and spam never need action; no action means no task.
 */
export function enforceInvariants(answer: ModelAnswer, dedupeKey: string | null): Classification {
  let needsAction = answer.needs_action;
  if (answer.category === 'action_required') needsAction = true;
  if (NEVER_ACTIONABLE.has(answer.category)) needsAction = false;
  let taskDescription = needsAction ? answer.task_description : null;
  if (needsAction && taskDescription === null) {
    taskDescription = answer.details.suggested_title ?? answer.details.summary ?? 'Review this email and respond';
  }
  return {
    needs_action: needsAction,
    category: answer.category,
    priority: answer.priority,
    task_description: taskDescription,
    reasoning: answer.reasoning,
    confidence: answer.confidence,
    details: { ...answer.details, dedupe_key: dedupeKey },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cleanText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed.slice(0, TEXT_MAX);
}

function cleanList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  for (const item of value) {
    const text = cleanText(item);
    if (text !== null) seen.add(text);
    if (seen.size >= LIST_ITEMS_MAX) break;
  }
  return [...seen];
}
