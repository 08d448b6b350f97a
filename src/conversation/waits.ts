import type { Logger } from 'pino';
import type { Database } from '../shared/db.js';
import { EVENTS_CHANNEL } from '../work/store/port.js';
import type { ConversationStatements } from './store/port.js';
import type { QuestionRow } from './tables.js';

// Waiting for an answer (GET /work/{id}/questions/{qid}?wait_s=N), as the claim's long poll
// waits (work/claims.ts): in memory, woken by a commit in this process (the store's signal) or
// a NOTIFY from another instance (the event hub's channel), never by polling the database. A
// wake reads the waited questions in one statement; those answered are handed back. A client
// that hangs up is forgotten at once: nothing of it stays behind.

interface Waiter {
  id: string;
  settle(row: QuestionRow | null): void;
}

export type QuestionWaits = ReturnType<typeof createQuestionWaits>;

export function createQuestionWaits({ database, statements, logger }: { database: Database; statements: ConversationStatements; logger: Logger }) {
  const waiters = new Set<Waiter>();
  let reading = false;
  let again = false;
  let unlisten: Promise<() => Promise<void>> | null = null;
  let closed = false;

  /** Resolves with the question once answered, or null at the end of `ms` or when `signal` aborts. */
  function wait(questionId: string, ms: number, signal?: AbortSignal): Promise<QuestionRow | null> {
    if (closed || signal?.aborted || ms <= 0) return Promise.resolve(null);
    startListening();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        id: questionId,
        settle(row) {
          if (!waiters.delete(waiter)) return;
          clearTimeout(deadline);
          signal?.removeEventListener('abort', leave);
          resolve(row);
        },
      };
      const leave = () => waiter.settle(null);
      const deadline = setTimeout(leave, ms);
      signal?.addEventListener('abort', leave, { once: true });
      waiters.add(waiter);
      // The answer may have committed between the caller's read and now.
      wake();
    });
  }

  /** Something committed: read the waited questions and hand back those answered. */
  function wake(): void {
    if (waiters.size === 0 || closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    void (async () => {
      try {
        do {
          again = false;
          const ids = [...new Set([...waiters].map((waiter) => waiter.id))];
          try {
            const answered = new Map((await statements.findQuestions(ids)).filter((row) => row.status === 'answered').map((row) => [row.id, row]));
            for (const waiter of [...waiters]) {
              const row = answered.get(waiter.id);
              if (row) waiter.settle(row);
            }
          } catch (error) {
            // The database away: the waiters stay, and the next wake (or their deadline) settles them.
            logger.warn({ err: { message: (error as Error).message } }, 'reading waited questions failed');
          }
        } while (again && !closed && waiters.size > 0);
      } finally {
        reading = false;
      }
    })();
  }

  function startListening(): void {
    unlisten ??= database.listen(EVENTS_CHANNEL, wake).catch((error: unknown) => {
      logger.warn({ err: { message: (error as Error).message } }, 'answer wake-ups from other instances unavailable');
      unlisten = null;
      return async () => {};
    });
  }

  async function close(): Promise<void> {
    closed = true;
    for (const waiter of [...waiters]) waiter.settle(null);
    await (await unlisten)?.();
  }

  return { wait, wake, close, waiting: () => waiters.size };
}
