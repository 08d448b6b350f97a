import type { Transaction } from 'kysely';
import { CONVERSATION_EVENTS, eventDataOf, newComment, toComment } from '../conversation/rows.js';
import type { ConversationStatementsOn } from '../conversation/store/create.js';
import { WorkItemNotFound } from './errors.js';
import { type Plan, changeItem } from './item-changes.js';
import type { Actor } from './item-view.js';
import type { CreateWorkItem } from './schemas.js';
import { type PlannedItem, planItem, writePlannedItems } from './service.js';
import type { WorkStore } from './store/port.js';
import type { WorkItemRow } from './tables.js';

// What mail intake may do with work items, and nothing more: create items from mail and add a
// follow-up to an item, in one commit with intake's own rows (the message log, the mailbox's
// cursor), so a message and what it made are written together or not at all. Intake writes
// its tables through the open transaction it is handed; work's tables only through this port.

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
  followUp(id: string, actor: Actor, at: string, edit: (row: WorkItemRow) => Plan['set'], comment: string): Promise<boolean>;
}

/** A planned item: what it will be once written (its id is known), and its write. */
export type PlannedMailItem = PlannedItem;

export interface WorkForIntake {
  /** Runs `work` in one transaction: what it writes through `items` and through `trx` commits together. */
  commit<T>(work: (items: MailWorkItems, trx: Transaction<any>) => Promise<T>): Promise<T>;
  /** Whether a project exists (a routing rule may name one). */
  projectExists(id: string): Promise<boolean>;
}

/** `comments`: the conversation's statements, for the follow-up's comment. */
export function workForIntake(store: WorkStore, comments: ConversationStatementsOn): WorkForIntake {
  return {
    commit: (work) =>
      store.transaction((tx, trx) =>
        work(
          {
            plan: (input, actor, at) => planItem(input, actor, at),
            write: (planned) => writePlannedItems(tx, planned),
            async followUp(id, actor, at, edit, comment) {
              try {
                let after: WorkItemRow | undefined;
                await changeItem(tx, id, () => at, undefined, actor, ({ row }) => {
                  const set = edit(row);
                  after = { ...row, ...set };
                  return { action: 'email_follow_up', set };
                });
                const written = newComment(id, actor, 'email', comment, [], at);
                await comments(trx).insertComment(written);
                await tx.appendEvent(CONVERSATION_EVENTS.commented, eventDataOf(toComment(written), after!), at);
                return true;
              } catch (error) {
                if (error instanceof WorkItemNotFound) return false;
                throw error;
              }
            },
          },
          trx,
        ),
      ),
    projectExists: async (id) => (await store.findProject(id)) !== undefined,
  };
}
