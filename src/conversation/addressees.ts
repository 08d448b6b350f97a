import { type Principal, isPerson } from '../auth/index.js';
import { MayNotAnswer } from './errors.js';
import { CREATOR } from './schemas.js';
import type { QuestionRow } from './tables.js';

// Whom a question is addressed to, and who may answer it. People (members, admins, everyone with
// AUTH=off) answer any question; an agent only one addressed to `@creator` on an item it created,
// so a requester that is itself an agent can be asked.

/** The names a question's `to` list stands for: `@creator` read as the item's creator. */
export function addressees(to: readonly string[], createdBy: string): string[] {
  return [...new Set(to.map((name) => (name === CREATOR ? createdBy : name)))];
}

/** Refuses an agent's answer to a question not addressed to it as the item's creator. */
export function assertMayAnswer(
  principal: Principal | null,
  question: Pick<QuestionRow, 'kind' | 'to_people'>,
  createdBy: string,
): void {
  if (principal === null || isPerson(principal)) return;
  const to = question.to_people === null ? [] : (JSON.parse(question.to_people) as string[]);
  if (question.kind === 'question' && to.includes(CREATOR) && principal.name === createdBy) return;
  throw new MayNotAnswer(principal.agent);
}
