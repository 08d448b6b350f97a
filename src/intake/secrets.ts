import type { SecretBox } from '../shared/secret-box.js';

// Mailbox secrets (passwords, access tokens, client secrets) sealed by the shared secret box; these
// name what a mailbox's sealed value belongs to and open it for a connection.

/** The associated data of a mailbox's secret. */
export function secretContext(mailboxId: string): string {
  return `agentdesk/mailbox/${mailboxId}/secret`;
}

/** A mailbox's stored secret in clear, for a connection; throws a message fit for the mailbox's state. */
export function openMailboxSecret(box: SecretBox | null, row: { id: string; secret: string | null }): string {
  if (row.secret === null) throw new Error('the mailbox has no secret stored');
  if (!box) throw new Error('AGENTDESK_SECRET_KEY is not set: the mailbox secret cannot be decrypted');
  return box.open(row.secret, secretContext(row.id));
}
