// The vocabulary of a classification, shared by the model's answer, the rules classifier,
// the HTTP schemas and the store. snake_case end to end, exactly as the API speaks it.

/** What a model (or the rules classifier) may answer. */
export const CATEGORIES = [
  'action_required',
  'meeting',
  'fyi',
  'notification',
  'transactional',
  'newsletter',
  'marketing',
  'spam',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Only the server produces this, when every attempt at the provider failed. */
export const FALLBACK_CATEGORY = 'uncategorized' as const;
export type ResultCategory = Category | typeof FALLBACK_CATEGORY;

/** One line per category: the system prompt shows them to the model, the docs to humans. */
export const CATEGORY_DEFINITIONS = {
  action_required:
    'A person asks the reader to do something: reply, decide, review, approve, sign, send or fix something.',
  meeting: 'A meeting invitation, a change to a meeting, or a request to schedule one.',
  fyi: 'Written by a person to keep the reader informed; nothing is asked of the reader.',
  notification: 'An automated message from a system or service: alerts, status changes, security notices, mentions.',
  transactional:
    'A record of a transaction with the reader: invoices, receipts, orders, shipping, bills, renewals, trials.',
  newsletter: 'Editorial content the reader subscribed to: digests, roundups, articles, updates.',
  marketing: 'Promotional content that tries to sell: offers, discounts, sales, product pitches.',
  spam: 'Unsolicited, deceptive or fraudulent mail: scams, phishing, prizes, money transfers.',
} as const satisfies Record<Category, string>;

/** Categories for which the reader never has to act, whatever the model says. */
export const NEVER_ACTIONABLE: ReadonlySet<Category> = new Set(['newsletter', 'marketing', 'spam']);

export const PRIORITIES = ['high', 'medium', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const DEDUPE_STATUSES = ['new', 'duplicate', 'updated'] as const;
export type DedupeStatus = (typeof DEDUPE_STATUSES)[number];

export const MATCHED_ON = ['none', 'id', 'conversation', 'fingerprint'] as const;
export type MatchedOn = (typeof MATCHED_ON)[number];

export interface ClassificationDetails {
  summary: string | null;
  suggested_title: string | null;
  suggested_notes: string | null;
  deadline: string | null;
  people: string[];
  organizations: string[];
  attachments_referenced: string[];
  next_steps: string[];
  key_points: string[];
  source_signals: string[];
  /** The content fingerprint; filled by the server, never by the model. */
  dedupe_key: string | null;
}

export interface Classification {
  needs_action: boolean;
  category: ResultCategory;
  priority: Priority;
  task_description: string | null;
  reasoning: string;
  confidence: number;
  details: ClassificationDetails;
}

export interface DedupeVerdict {
  status: DedupeStatus;
  seen_count: number;
  matched_on: MatchedOn;
  message_id: string | null;
  conversation_id: string | null;
  fingerprint: string;
}

/** The response of POST /classify. */
export interface ClassifyResult extends Classification {
  dedupe: DedupeVerdict;
}

export const SIGNAL_PROMPT_INJECTION = 'possible_prompt_injection';

export function isCategory(value: unknown): value is Category {
  return typeof value === 'string' && (CATEGORIES as readonly string[]).includes(value);
}

export function isPriority(value: unknown): value is Priority {
  return typeof value === 'string' && (PRIORITIES as readonly string[]).includes(value);
}
