import {
  CONVERSATION_EVENTS,
  eventDataOf,
  newComment,
  toComment,
  type ConversationStatementsOn,
  type QuestionService,
} from '../conversation/index.js';
import type { WorkForIntake } from '../intake/index.js';
import { decideReply, ownText } from '../notify/index.js';
import { DomainError } from '../shared/errors.js';
import {
  WorkItemNotFound,
  changeItem,
  planItem,
  writePlannedItems,
  type Actor,
  type WorkStore,
  type WorkItemRow,
} from '../work/index.js';

// Intake's work port on the work store: intake's rows and the items a message made commit in
// one transaction, and so does a reply's answer to its question.

/** How much of a reply that answered nothing its comment quotes. */
const QUOTED_REPLY = 1_000;

/**
 * `comments`: the conversation's statements, for the follow-up's comment; `questions`: the
 * answer a reply to the desk's mail gives, written in intake's commit.
 */
export function workForIntake(
  store: WorkStore,
  comments: ConversationStatementsOn,
  questions: Pick<QuestionService, 'answerIn'>,
): WorkForIntake {
  return {
    async commit(work) {
      // The answers' waiters are woken once the commit holding them is durable.
      const committed: Array<() => void> = [];
      const result = await store.transaction((tx, trx) => {
        const comment = async (row: WorkItemRow, actor: Actor, at: string, body: string) => {
          const written = newComment(row.id, actor, 'email', body, [], at);
          await comments(trx).insertComment(written);
          await tx.appendEvent(CONVERSATION_EVENTS.commented, eventDataOf(toComment(written), row), at);
        };
        return work(
          {
            plan: (input, actor, at) => planItem(input, actor, at),
            write: (planned) => writePlannedItems(tx, planned),
            async followUp(id, actor, at, edit, body) {
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
                await comment(after!, actor, at, body);
                return true;
              } catch (error) {
                if (error instanceof WorkItemNotFound) return false;
                throw error;
              }
            },
            async takeReply(reply, message, actor, at) {
              const question = await comments(trx).findQuestion(reply.work_item_id, reply.question_id);
              const row = await tx.findWorkItem(reply.work_item_id);
              if (!question || !row) return { action: 'recorded', work_item_id: null };
              const options = question.options === null ? null : (JSON.parse(question.options) as string[]);
              const verdict = decideReply(
                { kind: question.kind, status: question.status, options },
                message,
                reply.address,
                reply.refused,
              );
              let why = verdict.kind === 'refused' ? verdict.why : '';
              const unverified = verdict.kind === 'refused' && verdict.unverified;
              if (verdict.kind === 'answer') {
                const person = { name: reply.person, role: 'member', agent: null, token_id: null } as const;
                try {
                  const { done } = await questions.answerIn(
                    tx,
                    trx,
                    row.id,
                    question.id,
                    verdict.input,
                    person,
                    'email',
                  );
                  committed.push(done);
                  return { action: 'answered', work_item_id: row.id };
                } catch (error) {
                  // Checked before anything is written: the reply stays as a comment saying why.
                  if (!(error instanceof DomainError)) throw error;
                  why = error.message;
                }
              }
              const sender = message.from?.address ?? 'an unknown sender';
              const text = ownText(message);
              const quoted =
                text === '' ? '' : `\n\n${text.slice(0, QUOTED_REPLY)}${text.length > QUOTED_REPLY ? '…' : ''}`;
              await comment(
                row,
                actor,
                at,
                `${unverified ? 'Unverified reply' : 'Reply'} by email from ${sender}, not taken as an answer: ${why}.${quoted}`,
              );
              return { action: 'noted', work_item_id: row.id };
            },
          },
          trx,
        );
      });
      for (const done of committed) done();
      return result;
    },
    projectExists: async (id) => (await store.findProject(id)) !== undefined,
  };
}
