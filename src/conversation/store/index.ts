import type { Database } from '../../shared/db/database.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { ConversationStatements } from './port.js';
import { postgresConversationStatements } from './postgres.js';
import { sqliteConversationStatements } from './sqlite.js';

// The one place that looks at the dialect: the conversation's statements for the database, on
// the connection or the open transaction given.

export type ConversationStatementsOn = (db: DatabaseHandle) => ConversationStatements;

export function conversationStatementsFor(dialect: Database['dialect']): ConversationStatementsOn {
  return dialect === 'postgres' ? (db) => postgresConversationStatements(db) : (db) => sqliteConversationStatements(db);
}
