import type { UnitOfWork } from '../shared/db/schema.js';
import type { CreateWorkItem } from '../work/contract.js';
import type { Plan, PlannedItem, Actor, WorkItemRow } from '../work/index.js';
import type { ParsedMessage } from './mime.js';
import type { RecognisedReply, TakenReply } from './reply-port.js';

// What mail intake may do with work items, and nothing more: create items from mail and add a
// follow-up, in one commit with intake's own rows, so a message and what it made are written
// together or not at all. Intake declares this port; src/services/intake-work.ts implements it.

/** Work's side of one intake commit. */
export interface MailWorkItems {
  /** A new item, checked and given its id at once; written by `write`, in this commit. */
  plan(input: CreateWorkItem, actor: Actor, at: string): PlannedMailItem;
  /** Writes planned items (one statement per table, however many). */
  write(planned: readonly PlannedMailItem[]): Promise<void>;
  /**
   * Adds a follow-up to an item: `edit` gets the item as it is and answers its new values (the
   * payload's thread), recorded as `email_follow_up`; `comment` joins the item's timeline as a
   * comment of kind `email` by the actor. False when the item is gone.
   */
  followUp(
    id: string,
    actor: Actor,
    at: string,
    edit: (row: WorkItemRow) => Plan['set'],
    comment: string,
  ): Promise<boolean>;
  /**
   * A reply to the desk's mail, in this commit: answers its question as the person when the
   * reply may and says an answer, else leaves a comment on the item saying why not.
   */
  takeReply(reply: RecognisedReply, message: ParsedMessage, actor: Actor, at: string): Promise<TakenReply>;
}

/** A planned item: what it will be once written (its id is known), and its write. */
export type PlannedMailItem = PlannedItem;

export interface WorkForIntake {
  /** Runs `work` in one transaction: what it writes through `items` and through `trx` commits together. */
  commit<T>(work: (items: MailWorkItems, trx: UnitOfWork) => Promise<T>): Promise<T>;
  /** Whether a project exists (a routing rule may name one). */
  projectExists(id: string): Promise<boolean>;
}
