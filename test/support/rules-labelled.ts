import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CATEGORIES, type Category, isCategory } from '../../src/classify/categories.js';
import type { EmailInput, GraphEmailAddress, GraphMessage } from '../../src/email/normalize.js';

// The labelled set the offline classifier is measured on (test/fixtures/rules-labelled): emails
// written for the purpose in four languages, kept compact on disk ("Name <address>" instead of
// Graph's nested objects) and expanded here into the request shapes the API takes. An entry
// without a sender is sent in the simplified shape, as API callers without a mail platform do.
// The benchmark and the accuracy test both read it through this one loader.

export const LABELLED_DIR = join(process.cwd(), 'test', 'fixtures', 'rules-labelled');

export interface LabelledEmail {
  id: string;
  language: string;
  category: Category;
  /** Written with the rest but never looked at while the rules were tuned. */
  holdout: boolean;
  input: EmailInput;
  /** Labels of the task-level fields, on the emails that carry them (tasks-*.json). */
  expected: ExpectedTask | null;
}

export interface ExpectedTask {
  priority: string;
  /** ISO 8601 date or local date and time, or null when the email sets none. */
  deadline: string | null;
  /** The description a person would write, or null when there is nothing to do. */
  task: string | null;
  /** A word of the request the description must keep ("approve", "freigeben"). */
  verb: string | null;
}

interface LabelledFile {
  language: string;
  /** The mailbox the emails were sent to, unless an entry names another. */
  reader: string;
  emails: LabelledEntry[];
}

interface LabelledEntry {
  id: string;
  category: string;
  holdout: boolean;
  subject: string;
  body: string;
  html?: boolean;
  from?: string;
  to?: string;
  reply_to?: string;
  headers?: Record<string, string>;
  importance?: string;
  /** When it was sent (ISO 8601): relative deadlines are counted from it. */
  date?: string;
  priority?: string;
  deadline?: string | null;
  task?: string | null;
  verb?: string | null;
}

export function loadLabelledSet(dir = LABELLED_DIR): LabelledEmail[] {
  const emails: LabelledEmail[] = [];
  for (const name of readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()) {
    const file = JSON.parse(readFileSync(join(dir, name), 'utf8')) as LabelledFile;
    for (const entry of file.emails) {
      if (!isCategory(entry.category)) throw new Error(`${name}: ${entry.id} has unknown category ${entry.category}`);
      const expected: ExpectedTask | null =
        entry.priority === undefined
          ? null
          : {
              priority: entry.priority,
              deadline: entry.deadline ?? null,
              task: entry.task ?? null,
              verb: entry.verb ?? null,
            };
      emails.push({
        id: entry.id,
        language: file.language,
        category: entry.category,
        holdout: entry.holdout,
        input: toInput(entry, file.reader),
        expected,
      });
    }
  }
  const ids = new Set(emails.map((email) => email.id));
  if (ids.size !== emails.length) throw new Error('labelled set: duplicate ids');
  return emails;
}

function toInput(entry: LabelledEntry, reader: string): EmailInput {
  if (entry.from === undefined) return { email_data: { subject: entry.subject, body: entry.body }, id: entry.id };
  const message: GraphMessage = {
    id: entry.id,
    subject: entry.subject,
    body: { contentType: entry.html ? 'html' : 'text', content: entry.body },
    from: mailbox(entry.from),
    sender: mailbox(entry.from),
    toRecipients: [mailbox(entry.to ?? reader)],
    replyTo: entry.reply_to ? [mailbox(entry.reply_to)] : [],
    importance: entry.importance ?? 'normal',
    sentDateTime: entry.date ?? null,
    receivedDateTime: entry.date ?? null,
    hasAttachments: false,
    internetMessageHeaders: Object.entries(entry.headers ?? {}).map(([name, value]) => ({ name, value })),
  };
  return message;
}

function mailbox(text: string): GraphEmailAddress {
  const match = /^(.*?)\s*<([^<>\s]+)>$/.exec(text.trim());
  return { emailAddress: match ? { name: match[1] || null, address: match[2] } : { address: text.trim() } };
}

export interface Score {
  emails: number;
  correct: number;
  accuracy: number;
}

export interface Evaluation {
  overall: Score;
  by_split: Record<'dev' | 'holdout', Score>;
  by_language: Record<string, Score>;
  by_category: Record<Category, Score>;
  misses: Array<{ id: string; expected: Category; got: string; holdout: boolean }>;
}

/** Accuracy of `classify` (email → category) over the set, cut every way the report needs. */
export function evaluate(set: readonly LabelledEmail[], classify: (email: LabelledEmail) => string): Evaluation {
  const results = set.map((email) => ({ email, got: classify(email) }));
  const score = (filter: (email: LabelledEmail) => boolean): Score => {
    const chosen = results.filter((result) => filter(result.email));
    const correct = chosen.filter((result) => result.got === result.email.category).length;
    return {
      emails: chosen.length,
      correct,
      accuracy: chosen.length === 0 ? Number.NaN : round(correct / chosen.length),
    };
  };
  const languages = [...new Set(set.map((email) => email.language))].sort();
  return {
    overall: score(() => true),
    by_split: { dev: score((email) => !email.holdout), holdout: score((email) => email.holdout) },
    by_language: Object.fromEntries(
      languages.map((language) => [language, score((email) => email.language === language)]),
    ),
    by_category: Object.fromEntries(
      CATEGORIES.map((category) => [category, score((email) => email.category === category)]),
    ) as Record<Category, Score>,
    misses: results
      .filter((result) => result.got !== result.email.category)
      .map((result) => ({
        id: result.email.id,
        expected: result.email.category,
        got: result.got,
        holdout: result.email.holdout,
      })),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export const FIELDS = ['category', 'priority', 'deadline'] as const;
export type Field = (typeof FIELDS)[number];
export type Verdict = Record<Field, string | null>;

export interface FieldEvaluation {
  /** Per field, over every email that labels it: all of them for the category, the task-labelled ones for the rest. */
  overall: Record<Field, Score>;
  by_language: Record<string, Record<Field, Score>>;
  misses: Array<{ id: string; field: Field; expected: string | null; got: string | null }>;
}

/** Accuracy of each labelled field, overall and per language. */
export function evaluateFields(
  set: readonly LabelledEmail[],
  classify: (email: LabelledEmail) => Verdict,
): FieldEvaluation {
  const results = set.map((email) => ({ email, got: classify(email) }));
  const expectedOf = (email: LabelledEmail, field: Field): string | null | undefined =>
    field === 'category' ? email.category : email.expected === null ? undefined : email.expected[field];
  const misses: FieldEvaluation['misses'] = [];
  const score = (filter: (email: LabelledEmail) => boolean, field: Field, record: boolean): Score => {
    const chosen = results.filter((result) => filter(result.email) && expectedOf(result.email, field) !== undefined);
    let correct = 0;
    for (const { email, got } of chosen) {
      const expected = expectedOf(email, field)!;
      if (expected === got[field]) correct += 1;
      else if (record) misses.push({ id: email.id, field, expected, got: got[field] });
    }
    return {
      emails: chosen.length,
      correct,
      accuracy: chosen.length === 0 ? Number.NaN : round(correct / chosen.length),
    };
  };
  const perField = (filter: (email: LabelledEmail) => boolean, record: boolean) =>
    Object.fromEntries(FIELDS.map((field) => [field, score(filter, field, record)])) as Record<Field, Score>;
  const languages = [...new Set(set.map((email) => email.language))].sort();
  return {
    overall: perField(() => true, true),
    by_language: Object.fromEntries(
      languages.map((language) => [language, perField((email) => email.language === language, false)]),
    ),
    misses,
  };
}
