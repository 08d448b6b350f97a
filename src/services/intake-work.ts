import {
  CONVERSATION_EVENTS,
  eventDataOf,
  newComment,
  toComment,
  type ConversationStatementsOn,
} from '../conversation/index.js';
import type { WorkForIntake } from '../intake/index.js';
import {
  WorkItemNotFound,
  changeItem,
  planItem,
  writePlannedItems,
  type WorkStore,
  type WorkItemRow,
} from '../work/index.js';

// Intake's work port on the work store: intake's rows and the items a message made commit in
// one transaction.

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
                await changeItem(
                  tx,
                  id,
                  () => at,
                  undefined,
                  actor,
                  ({ row }) => {
                    const set = edit(row);
                    after = { ...row, ...set };
                    return { action: 'email_follow_up', set };
                  },
                );
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
