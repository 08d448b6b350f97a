import type { NotificationStatus } from '../schemas.js';
import type { NotificationRow } from '../tables.js';

// What the outbox asks of its database: SQL only. The sender decides when a row is due again
// and what its error says; the store writes what it is given.

export interface NotificationPosition {
  at: string;
  id: string;
}

export interface NotificationFilter {
  status?: NotificationStatus;
  work_item_id?: string;
  person?: string;
}

/** The outcome of one attempt, written only while the sender's lease still holds the row. */
export type AttemptOutcome =
  { status: 'sent'; at: string } | { status: 'failed'; error: string; next_attempt_at: string | null };

export interface OutboxStatements {
  /** Writes a row to send (in the caller's transaction when given one). */
  insert(row: NotificationRow): Promise<void>;
  /**
   * Takes up to `limit` rows due at `now` and not leased by another sender, leasing them until
   * `leaseUntil`; two senders never take the same row while its lease holds.
   */
  claimDue(now: string, leaseUntil: string, limit: number): Promise<NotificationRow[]>;
  /** Records an attempt on a row this sender leased (`leasedUntil`); false when the lease was lost. */
  recordAttempt(id: string, leasedUntil: string, outcome: AttemptOutcome): Promise<boolean>;
  /**
   * Marks a row this sender leased as never to be sent (`skipped`, the reason in last_error),
   * with no attempt counted; false when the lease was lost.
   */
  recordSkipped(id: string, leasedUntil: string, reason: string): Promise<boolean>;
  /** Newest first, keyset-paged on (created_at, id). */
  list(filter: NotificationFilter, after: NotificationPosition | null, limit: number): Promise<NotificationRow[]>;
  /** An item's notifications, oldest first. */
  listForItem(workItemId: string): Promise<NotificationRow[]>;
  findById(id: string): Promise<NotificationRow | undefined>;
  /** The rows whose Message-ID (as sent, in angle brackets) is one of these. */
  findByMessageIds(messageIds: readonly string[]): Promise<NotificationRow[]>;
}
