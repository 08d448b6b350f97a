import { randomBytes } from 'node:crypto';
import type { Database } from '../../shared/db/database.js';
import type { SecretBox } from '../../shared/secret-box.js';
import { secretStatementsFor } from './store/index.js';

// The key answer links and reply addresses are signed with: LINK_SECRET when set, else 32 random
// bytes made by the first instance to start and kept in app_secrets, so every instance agrees.
// Kept sealed under AGENTDESK_SECRET_KEY when the server has it; a row kept in clear is sealed then.

export const LINK_SECRET_NAME = 'link_secret';
const GENERATED_BYTES = 32;
/** What the sealed value is bound to, so it opens on no other row. */
const SEALED_FOR = `app_secrets:${LINK_SECRET_NAME}`;

export interface LinkSecretSource {
  /** LINK_SECRET or the contents of LINK_SECRET_FILE (config.answerLinks.secret); null: the database's. */
  configured: string | null;
  database: Database;
  /** AGENTDESK_SECRET_KEY's box; null: the generated secret is kept in clear. */
  box: SecretBox | null;
  now?: () => Date;
}

export class LinkSecretSealed extends Error {
  constructor() {
    super(
      'the answer-link secret in the database is sealed under AGENTDESK_SECRET_KEY: start with that key, or set LINK_SECRET',
    );
    this.name = 'LinkSecretSealed';
  }
}

/** A sealed value is `v1.<nonce>.<body>.<tag>`; a clear one is base64url, which has no dot. */
function isSealed(value: string): boolean {
  return value.includes('.');
}

/**
 * The signing key as bytes. Inserted if absent, then read: two instances starting at once both
 * end with the row the first commit wrote. Never logged, and no error carries it.
 */
export async function loadLinkSecret({
  configured,
  database,
  box,
  now = () => new Date(),
}: LinkSecretSource): Promise<Buffer> {
  if (configured !== null) return Buffer.from(configured, 'utf8');
  const statements = secretStatementsFor(database);
  const made = randomBytes(GENERATED_BYTES).toString('base64url');
  await statements.insertIfAbsent({
    name: LINK_SECRET_NAME,
    value: box === null ? made : box.seal(made, SEALED_FOR),
    created_at: now().toISOString(),
  });
  const stored = await statements.read(LINK_SECRET_NAME);
  if (stored === undefined) throw new Error(`app_secrets has no ${LINK_SECRET_NAME} row after writing it`);
  if (isSealed(stored)) {
    if (box === null) throw new LinkSecretSealed();
    return Buffer.from(box.open(stored, SEALED_FOR), 'base64url');
  }
  // Kept in clear by a server without the key: sealed now. Guarded by the old value, so two
  // instances sealing at once leave one sealed row of the same secret.
  if (box !== null) await statements.replace(LINK_SECRET_NAME, stored, box.seal(stored, SEALED_FOR));
  return Buffer.from(stored, 'base64url');
}
