import type { Logger } from 'pino';
import type { Database } from '../shared/db/database.js';
import { RateLimitedError } from '../shared/errors.js';
import type { ConversationStatements } from './store/port.js';
import type { QuestionRow } from './tables.js';

// Waiting for an answer (GET /work/{id}/questions/{qid}?wait_s=N), as the claim's long poll waits
// (work/claims.ts): in memory, never by polling the database. A client that hangs up is forgotten
// at once.

/** The NOTIFY channel that carries the ids of closed questions, comma-separated. */
export const QUESTIONS_CHANNEL = 'agentdesk_questions';
/** Ids per NOTIFY: 36 characters and a comma each, under PostgreSQL's 8,000-byte payload. */
const IDS_PER_NOTIFY = 200;

interface Waiter {
  id: string;
  settle(row: QuestionRow | null): void;
}

/** The caller already holds as many waits as it may. */
export class TooManyWaits extends RateLimitedError {
  constructor(limit: number) {
    super(
      `This caller already waits for ${limit} answers at once (QUESTION_WAITS_PER_CALLER); wait without wait_s, or end a wait first`,
      1,
    );
  }
}

export type QuestionWaits = ReturnType<typeof createQuestionWaits>;

export interface QuestionWaitsDeps {
  database: Database;
  statements: ConversationStatements;
  logger: Logger;
  /** How many waits one caller may hold at once. */
  perCaller: number;
}

/**
 * Only the commits that close a question (an answer, or its item finishing: moot) wake anyone, and
 * only that question's waiters: this process's commits say which ids they closed (`closed`), other
 * instances NOTIFY them on QUESTIONS_CHANNEL. So waits cost nothing on the commits that close none.
 */
export function createQuestionWaits({ database, statements, logger, perCaller }: QuestionWaitsDeps) {
  /** The waiters of each waited question, by its id. */
  const waiters = new Map<string, Set<Waiter>>();
  const callers = new Map<string, number>();
  let count = 0;
  /** Closed questions whose waiters have yet to be read for; `everyone` after a missed NOTIFY. */
  const pending = new Set<string>();
  let everyone = false;
  let reading = false;
  let unlisten: Promise<() => Promise<void>> | null = null;
  let stopped = false;

  /**
   * Resolves with the question once it is no longer open, or null at the end of `ms` or when
   * `signal` aborts; `caller` names who waits (the limit is per caller).
   */
  function wait(questionId: string, ms: number, caller: string, signal?: AbortSignal): Promise<QuestionRow | null> {
    if (stopped || signal?.aborted || ms <= 0) return Promise.resolve(null);
    const held = callers.get(caller) ?? 0;
    if (held >= perCaller) throw new TooManyWaits(perCaller);
    startListening();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        id: questionId,
        settle(row) {
          const set = waiters.get(questionId);
          if (!set?.delete(waiter)) return;
          if (set.size === 0) waiters.delete(questionId);
          count -= 1;
          const left = (callers.get(caller) ?? 1) - 1;
          if (left === 0) callers.delete(caller);
          else callers.set(caller, left);
          clearTimeout(deadline);
          signal?.removeEventListener('abort', leave);
          resolve(row);
        },
      };
      const leave = () => waiter.settle(null);
      const deadline = setTimeout(leave, ms);
      signal?.addEventListener('abort', leave, { once: true });
      let set = waiters.get(questionId);
      if (!set) waiters.set(questionId, (set = new Set()));
      set.add(waiter);
      count += 1;
      callers.set(caller, held + 1);
      // The answer may have committed between the caller's read and now.
      wakeFor([questionId]);
    });
  }

  /**
   * A commit of this process closed these questions (answered or moot): their waiters here read
   * them, and the other instances are told (a no-op on SQLite).
   */
  function closed(ids: readonly string[]): void {
    if (ids.length === 0) return;
    wakeFor(ids);
    void announce(ids).catch((error: unknown) => {
      logger.warn(
        { err: { message: (error as Error).message } },
        'telling other instances of answered questions failed',
      );
    });
  }

  async function announce(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) {
      await database.notify(QUESTIONS_CHANNEL, ids.slice(i, i + IDS_PER_NOTIFY).join(','));
    }
  }

  function wakeFor(ids: readonly string[]): void {
    for (const id of ids) if (waiters.has(id)) pending.add(id);
    drain();
  }

  function drain(): void {
    if (reading || stopped || (pending.size === 0 && !everyone)) return;
    reading = true;
    void (async () => {
      try {
        while (!stopped && (pending.size > 0 || everyone)) {
          const ids = everyone ? [...waiters.keys()] : [...pending];
          everyone = false;
          pending.clear();
          if (ids.length === 0) continue;
          try {
            for (const row of await statements.findQuestions(ids)) {
              if (row.status === 'open') continue;
              for (const waiter of [...(waiters.get(row.id) ?? [])]) waiter.settle(row);
            }
          } catch (error) {
            // The database away: the waiters stay, and their deadline settles them.
            logger.warn({ err: { message: (error as Error).message } }, 'reading waited questions failed');
          }
        }
      } finally {
        reading = false;
      }
    })();
  }

  function startListening(): void {
    unlisten ??= database
      .listen(QUESTIONS_CHANNEL, (payload) => {
        // null: (re)connected, and a close may have been missed meanwhile.
        if (payload === null) {
          everyone = true;
          drain();
        } else wakeFor(payload.split(',').filter(Boolean));
      })
      .catch((error: unknown) => {
        logger.warn({ err: { message: (error as Error).message } }, 'answer wake-ups from other instances unavailable');
        unlisten = null;
        return async () => {};
      });
  }

  async function close(): Promise<void> {
    stopped = true;
    for (const set of [...waiters.values()]) for (const waiter of [...set]) waiter.settle(null);
    await (
      await unlisten
    )?.();
  }

  return { wait, closed, close, waiting: () => count };
}
