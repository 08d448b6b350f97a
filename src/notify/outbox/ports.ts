import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { Question } from '../../conversation/contract.js';
import type { WorkItemRow } from '../../work/index.js';

// What the outbox needs from the lanes beside it, as small ports the composition root wires:
// who is told of a question (the people feature) and the signed tokens of the links and the
// reply address (the links feature). Their defaults tell nobody and sign nothing.

export const NOTIFY_MODES = ['immediate', 'digest', 'off'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

export interface Recipient {
  name: string;
  email: string;
  notify: NotifyMode;
}

/**
 * The people told of a question or review on `item`, read on `db` (the transaction that opens
 * it: a read on the top-level database there would wait for itself on SQLite).
 */
export type RecipientsPort = (db: DatabaseHandle, item: WorkItemRow, question: Question) => Promise<Recipient[]>;

/** The signed tokens mail carries: a one-click answer link per person, a reply address per mail. */
export interface LinkTokens {
  answerToken(questionId: string, person: string): string;
  replyToken(notificationId: string): string;
}

/** Without the people feature nobody is told. */
export const NOBODY: RecipientsPort = async () => [];
