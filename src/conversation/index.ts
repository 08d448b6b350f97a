// conversation's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { addressees } from './addressees.js';
export { registerConversationGauges } from './metrics.js';
export type { OpenedQuestion, QuestionOpened } from './opened.js';
export { registerConversationRoutes } from './routes.js';
export { CONVERSATION_EVENTS, eventDataOf, isOverdue, newComment, toComment, toQuestion } from './rows.js';
export type { QuestionService } from './questions.js';
export { createConversation } from './setup.js';
export { DEPENDENT_NOTES } from './store/dependent-notes.js';
export type { ConversationStatementsOn } from './store/index.js';
export type { ConversationStatements, WaitingRow } from './store/port.js';
export type { CommentRow, QuestionRow } from './tables.js';
