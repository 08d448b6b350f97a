import type { Logger } from 'pino';
import type { Database } from '../shared/db/database.js';
import type { RecentItems, WorkObserver, WorkStore } from '../work/index.js';
import { createCommentService } from './comments.js';
import type { QuestionOpened } from './opened.js';
import { createQuestionService } from './questions.js';
import { conversationStatementsFor } from './store/index.js';
import { createQuestionWaits } from './waits.js';

// The conversation's parts, built once per process by the composition root (services/work.ts):
// comments, questions (with the review gate the work service consults) and the waits for answers.
// The questions' `closeForFinished` is the work store's FinishedHook, handed over by the root.

export interface ConversationDeps {
  store: WorkStore;
  database: Database;
  logger: Logger;
  now: () => Date;
  recent?: RecentItems;
  observer?: WorkObserver;
  /** How many answers one caller may wait for at once (QUESTION_WAITS_PER_CALLER). */
  waitsPerCaller: number;
  /** Told of each question and review in its transaction (notify's outbox); nothing by default. */
  opened?: QuestionOpened;
}

export type Conversation = ReturnType<typeof createConversation>;

export function createConversation({
  store,
  database,
  logger,
  now,
  recent,
  observer,
  waitsPerCaller,
  opened,
}: ConversationDeps) {
  const timestamp = () => now().toISOString();
  const statementsOn = conversationStatementsFor(database.dialect);
  const waits = createQuestionWaits({
    database,
    statements: statementsOn(database.kysely),
    logger,
    perCaller: waitsPerCaller,
  });
  const comments = createCommentService({
    store,
    db: database.kysely,
    statementsOn,
    now: timestamp,
    ...(recent && { recent }),
  });
  const questions = createQuestionService({
    store,
    db: database.kysely,
    statementsOn,
    now: timestamp,
    waits,
    ...(recent && { recent }),
    ...(observer && { observer }),
    ...(opened && { opened }),
  });
  return { comments, questions, waits, statementsOn };
}
