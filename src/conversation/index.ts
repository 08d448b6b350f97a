// conversation's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { registerConversationGauges } from './metrics.js';
export { registerConversationRoutes } from './routes.js';
export { CONVERSATION_EVENTS, eventDataOf, newComment, toComment } from './rows.js';
export { createConversation } from './setup.js';
export { DEPENDENT_NOTES } from './store/dependent-notes.js';
export type { ConversationStatementsOn } from './store/index.js';
export type { QuestionService } from './questions.js';
