import type { Database } from '../../../shared/db/database.js';
import { crossDialectSecretStatements } from './cross-dialect.js';
import type { SecretStatements } from './port.js';

// The one place that would look at the dialect: both databases take the same two statements.

export function secretStatementsFor(database: Database): SecretStatements {
  return crossDialectSecretStatements(database.kysely);
}
