import { addressees } from '../../conversation/index.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import { findPeopleOn } from './store/cross-dialect.js';
import type { PersonRow } from './store/port.js';

// Who is told of a question or a review: the people it names (`@creator`: the item's creator),
// else the item's watchers, its project's watchers and its creator; only names with a profile
// (an address), and never whoever asked.

/** What the desk needs of a person to tell them. */
export type Recipient = Pick<PersonRow, 'name' | 'email' | 'notify' | 'digest_at' | 'tz'>;

export interface RecipientItem {
  watchers: string | null;
  created_by: string;
}

export interface RecipientProject {
  watchers: string | null;
}

export interface RecipientQuestion {
  to_people: string | null;
  asked_by: string;
  /** A review goes to the same people as a question. */
  kind: 'question' | 'review';
}

function names(column: string | null): string[] {
  return column ? (JSON.parse(column) as string[]) : [];
}

/** The names told of `question` on `item` (with a profile or not): the rule, without the database. */
export function namesToTell(
  item: RecipientItem,
  project: RecipientProject | null,
  question: RecipientQuestion,
): Set<string> {
  const named = question.to_people === null ? null : addressees(names(question.to_people), item.created_by);
  const wanted = new Set(named ?? [...names(item.watchers), ...names(project?.watchers ?? null), item.created_by]);
  wanted.delete(question.asked_by);
  return wanted;
}

/**
 * The profiles told of `question` on `item`, by name (code-unit order, as both databases sort
 * names). Read on `db`, which may be the transaction that opens the question.
 */
export async function recipientsFor(
  db: DatabaseHandle,
  item: RecipientItem,
  project: RecipientProject | null,
  question: RecipientQuestion,
): Promise<Recipient[]> {
  const found = await findPeopleOn(db, [...namesToTell(item, project, question)]);
  return found
    .map(({ name, email, notify, digest_at, tz }) => ({ name, email, notify, digest_at, tz }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
