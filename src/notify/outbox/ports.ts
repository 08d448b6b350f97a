import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { Question } from '../../conversation/contract.js';
import type { ProjectRow, WorkItemRow } from '../../work/index.js';
import { type Recipient, recipientsFor } from '../people/recipients.js';

// What the outbox needs beside it, as small ports: who is told of a question (the people rule),
// the signed tokens of the links and the reply address (the links, wired by the root), and
// whether a question is still open (the conversation).

export type { Recipient } from '../people/recipients.js';

/**
 * The people told of a question or review on `item`, read on `db` (the transaction that opens
 * it: a read on the top-level database there would wait for itself on SQLite).
 */
export type RecipientsPort = (
  db: DatabaseHandle,
  item: WorkItemRow,
  project: ProjectRow | null,
  question: Question,
) => Promise<Recipient[]>;

/** The signed tokens mail carries: a one-click answer link per person, a reply address per mail. */
export interface MailTokens {
  answerToken(questionId: string, person: string): string;
  replyToken(notificationId: string): string;
}

/**
 * The state of a question as the conversation has it now (undefined: it is gone), read by the
 * sender just before a mail goes: a mail about a question no longer open is not sent.
 */
export type QuestionStatusPort = (questionId: string) => Promise<Question['status'] | undefined>;

/** The people feature's rule: those the question names, else the watchers and the creator. */
export const PEOPLE_RECIPIENTS: RecipientsPort = (db, item, project, question) =>
  recipientsFor(db, item, project, {
    to_people: question.to === null ? null : JSON.stringify(question.to),
    asked_by: question.asked_by,
    kind: question.kind,
  });
