import { randomBytes } from 'node:crypto';
import type { Database } from '../../shared/db/database.js';
import { secretStatementsFor } from './store/index.js';

// The key answer links and reply addresses are signed with: LINK_SECRET when set, else 32 random
// bytes made by the first instance to start and kept in app_secrets, so every instance agrees.

export const LINK_SECRET_NAME = 'link_secret';
const GENERATED_BYTES = 32;

export interface LinkSecretSource {
  /** LINK_SECRET or the contents of LINK_SECRET_FILE (config.answerLinks.secret); null: the database's. */
  configured: string | null;
  database: Database;
  now?: () => Date;
}

/**
 * The signing key as bytes. Inserted if absent, then read: two instances starting at once both
 * end with the row the first commit wrote. Never logged, and no error carries it.
 */
export async function loadLinkSecret({
  configured,
  database,
  now = () => new Date(),
}: LinkSecretSource): Promise<Buffer> {
  if (configured !== null) return Buffer.from(configured, 'utf8');
  const statements = secretStatementsFor(database);
  await statements.insertIfAbsent({
    name: LINK_SECRET_NAME,
    value: randomBytes(GENERATED_BYTES).toString('base64url'),
    created_at: now().toISOString(),
  });
  const value = await statements.read(LINK_SECRET_NAME);
  if (value === undefined) throw new Error(`app_secrets has no ${LINK_SECRET_NAME} row after writing it`);
  return Buffer.from(value, 'base64url');
}
