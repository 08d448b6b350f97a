import type { ConversationStatements } from '../../conversation/index.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';

// What the scheduler needs of the conversation, on a connection or an open transaction: the open
// questions with their people, those past their deadline, and the guarded mark of an escalation
// (the conversation's own SQL; the composition root passes the conversation's statements).

export type WaitingQuestions = Pick<ConversationStatements, 'listWaiting' | 'listToEscalate' | 'markEscalated'>;
export type WaitingQuestionsOn = (db: DatabaseHandle) => WaitingQuestions;
