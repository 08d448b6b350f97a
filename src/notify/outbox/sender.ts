import type { Logger } from 'pino';
import type { MailTransport } from './transport.js';
import type { QuestionStatusPort } from './ports.js';
import type { OutboxStatements } from './store/port.js';
import type { NotificationRow } from './tables.js';

// The outbox's sender: takes the due rows under a lease (so two instances never send one row at
// once), sends each, and records the outcome: sent, failed (retried with backoff), or skipped
// when its question closed before it went. startOutboxSender says when it runs and after a crash.

export interface RetryPolicy {
  /** The wait after the first failure; each further failure doubles it, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** After this many failed attempts the row stays failed with no next attempt (given up). */
  maxAttempts: number;
}

export const RETRY_POLICY: RetryPolicy = { firstDelayMs: 30_000, maxDelayMs: 3_600_000, maxAttempts: 10 };

/** Why a skipped row was not sent: its `last_error`, by the question's state when the sender took it. */
export const SKIP_REASONS = {
  answered: 'the question was answered before the mail went',
  moot: 'the question was closed (its item finished) before the mail went',
  gone: 'the question no longer exists',
} as const;

export interface SenderOptions {
  outbox: OutboxStatements;
  transport: MailTransport;
  /** Read before each mail about a question: one no longer open is skipped, not sent. */
  questionStatus: QuestionStatusPort;
  now: () => Date;
  logger: Logger;
  /** How often the sender looks for due rows besides the nudges. */
  pollMs?: number;
  /** Longer than any send can take with the transport's timeouts. */
  leaseMs?: number;
  batch?: number;
  retry?: RetryPolicy;
  /** How long stop() waits for a pass under way before leaving it to its lease. */
  stopWaitMs?: number;
}

export interface OutboxSender {
  /** Asks for a pass soon; never waits (a request calls it after its commit). */
  nudge(): void;
  /** One pass over the due rows, after any pass under way; resolves with how many it sent. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** When a row that failed `attempts` times (this one included) is tried again; null: given up. */
export function nextAttemptAt(attempts: number, at: Date, retry: RetryPolicy): string | null {
  if (attempts >= retry.maxAttempts) return null;
  const delay = Math.min(retry.firstDelayMs * 2 ** (attempts - 1), retry.maxDelayMs);
  return new Date(at.getTime() + delay).toISOString();
}

/**
 * A commit that wrote rows nudges the sender, so mail leaves within moments; a timer polls too,
 * for other instances' rows and for the retries. A crash mid-send leaves the lease to run out
 * and the row to go again: at least once, maybe twice, with the same Message-ID.
 */
export function startOutboxSender({
  outbox,
  transport,
  questionStatus,
  now,
  logger,
  pollMs = 15_000,
  leaseMs = 300_000,
  batch = 20,
  retry = RETRY_POLICY,
  stopWaitMs = 5_000,
}: SenderOptions): OutboxSender {
  let stopped = false;
  let current: Promise<number> = Promise.resolve(0);
  // A pass is queued behind the one under way: nudges meanwhile add nothing to it.
  let queued = false;

  /** Why the row must not go now: its question is no longer open; null when it may. */
  async function skipReason(row: NotificationRow): Promise<string | null> {
    if (row.question_id === null) return null;
    const status = await questionStatus(row.question_id);
    if (status === 'open') return null;
    return SKIP_REASONS[status ?? 'gone'];
  }

  async function sendOne(row: NotificationRow, leasedUntil: string): Promise<boolean> {
    const skip = await skipReason(row);
    if (skip !== null) {
      await outbox.recordSkipped(row.id, leasedUntil, skip);
      logger.info({ notification: row.id, question: row.question_id, reason: skip }, 'notification skipped');
      return false;
    }
    const at = now();
    try {
      await transport.send(row, at);
    } catch (error) {
      const message = (error as Error).message;
      const next = nextAttemptAt(row.attempts + 1, now(), retry);
      await outbox.recordAttempt(row.id, leasedUntil, { status: 'failed', error: message, next_attempt_at: next });
      logger.warn(
        { notification: row.id, attempts: row.attempts + 1, next_attempt_at: next, error: message },
        next === null ? 'notification given up' : 'notification not sent; will retry',
      );
      return false;
    }
    if (!(await outbox.recordAttempt(row.id, leasedUntil, { status: 'sent', at: now().toISOString() }))) {
      logger.warn({ notification: row.id }, 'notification sent after its lease ran out; it may go twice');
    }
    return true;
  }

  async function pass(): Promise<number> {
    let sent = 0;
    for (;;) {
      const at = now();
      const leasedUntil = new Date(at.getTime() + leaseMs).toISOString();
      const rows = await outbox.claimDue(at.toISOString(), leasedUntil, batch);
      for (const row of rows) if (await sendOne(row, leasedUntil)) sent += 1;
      if (rows.length < batch || stopped) return sent;
    }
  }

  function runOnce(): Promise<number> {
    // `current` never rejects: a failed pass is the caller's to report, and the next one runs.
    const next = current.then(() => {
      queued = false;
      return stopped ? 0 : pass();
    });
    current = next.catch(() => 0);
    return next;
  }

  function nudge(): void {
    if (stopped || queued) return;
    queued = true;
    runOnce().catch((error: unknown) => {
      // Once stopped, the database may be closed under a pass: the lease brings its rows back.
      if (stopped) logger.debug({ err: error }, 'notification sender pass ended by the stop');
      else logger.error({ err: error }, 'notification sender pass failed');
    });
  }

  const timer = setInterval(nudge, pollMs);
  timer.unref();
  nudge();

  return {
    nudge,
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      transport.close();
      // A send stuck on a silent server must not hold the shutdown for its whole timeout.
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([current, new Promise((resolve) => (wait = setTimeout(resolve, stopWaitMs)))]);
      clearTimeout(wait);
    },
  };
}
