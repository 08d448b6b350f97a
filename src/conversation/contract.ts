// conversation's wire vocabulary for the layers above and for clients: schemas and import-free lists only.

export {
  AnswerSchema,
  AskSchema,
  CommentSchema,
  CommentsQuerySchema,
  CONVERSATION_PAGE,
  CreateCommentSchema,
  InboxEntrySchema,
  LinkSchema,
  QUESTION_LIMITS,
  QUESTION_WAIT_LIMITS,
  QuestionCountsSchema,
  QuestionSchema,
  type Answer,
  type Ask,
  type Comment,
  type CommentsQuery,
  type CreateComment,
  type InboxEntry,
  type InboxQuery,
  type Question,
} from './schemas.js';
