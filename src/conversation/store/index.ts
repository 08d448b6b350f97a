import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../shared/db/database.js';
import type { ConversationStatements } from './port.js';
import type { Executor } from './cross-dialect.js';
import { postgresConversationStatements } from './postgres.js';
import { sqliteConversationStatements } from './sqlite.js';

// The one place that looks at the dialect: the conversation's statements for the database, on
// the connection or the open transaction given.

export type ConversationStatementsOn = (db: Kysely<any> | Transaction<any>) => ConversationStatements;

export function conversationStatementsFor(dialect: Database['dialect']): ConversationStatementsOn {
  return dialect === 'postgres'
    ? (db) => postgresConversationStatements(db as Executor)
    : (db) => sqliteConversationStatements(db as Executor);
}
