import type { Database } from '../../shared/db/database.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WebhookStatements } from './port.js';
import { postgresWebhooks } from './postgres.js';
import { sqliteWebhooks } from './sqlite.js';

// The one place that looks at the dialect: the webhook statements on the connection or the open
// transaction given.

export type WebhookStatementsOn = (db: DatabaseHandle) => WebhookStatements;

export function webhookStatementsFor(dialect: Database['dialect']): WebhookStatementsOn {
  return dialect === 'postgres' ? (db) => postgresWebhooks(db) : (db) => sqliteWebhooks(db);
}
