import type { TransactionRunner } from '../../shared/db/group-commit.js';
import type { UnitOfWork } from '../../shared/db/schema.js';
import { claimableAfter, createNewsCollector, newsOfReleased } from '../agent-loop/claimable.js';
import {
  type CommitListener,
  type FinishedHook,
  type FinishedItem,
  type NewItem,
  type WorkStatements,
  type WorkStore,
  finishes,
} from './port.js';

// The decorator that makes statements a store: every write of more than one statement runs in a
// transaction of its own (on SQLite the group commit of shared/group-commit.ts, which the
// database's transaction runner is), reads run as they are, and calls inside `transaction` join it.

export interface TransactionalDeps {
  /** The store's statements at the top level (on the database itself). */
  top: WorkStatements;
  /** The same statements on an open transaction. */
  on: (trx: UnitOfWork) => WorkStatements;
  runTransaction: TransactionRunner;
  /**
   * Hears of every commit that appended an event, once it has committed, with what it made
   * claimable (claimable.ts: the new items as they are, the changes by their `wakes`).
   */
  onEventsCommitted: CommitListener;
  /** Told of the items each transaction finished, before it commits (port.ts FinishedHook). */
  onFinished?: FinishedHook;
}

export function transactional({
  top,
  on,
  runTransaction,
  onEventsCommitted,
  onFinished,
}: TransactionalDeps): WorkStore {
  /** Runs `work` on a transaction's store and tells of appended events after the commit. */
  async function inTransaction<T>(work: (store: WorkStore, trx: UnitOfWork) => Promise<T>): Promise<T> {
    const appended: Appended = { events: false, news: createNewsCollector(), finished: [] };
    const after: (() => void)[] = [];
    const result = await runTransaction(async (trx) => {
      const store = joined(trackingAppends(on(trx), appended), trx);
      const value = await work(store, trx);
      if (onFinished && appended.finished.length > 0) {
        const committed = await onFinished(store, trx, appended.finished.splice(0));
        if (committed) after.push(committed);
      }
      return value;
    });
    if (appended.events) onEventsCommitted(appended.news.take());
    for (const committed of after) committed();
    return result;
  }

  /** A store inside an open transaction: every call runs on it, and a nested transaction joins it. */
  function joined(statements: WorkStatements, trx: UnitOfWork): WorkStore {
    const store: WorkStore = {
      ...statements,
      transaction: (work) => work(store, trx),
      optimistic: (work) => work(store),
      createWorkItem: (row, dispatch, event, history) =>
        statements.createWorkItems([{ row, dispatch, event, history }]),
      findWithDispatches: async (id) => (await statements.findManyWithDispatches([id]))[0],
      applyChange: async (change) => (await statements.applyChanges([change]))[0]!,
    };
    return store;
  }

  const write =
    <A extends unknown[], R>(method: (statements: WorkStatements, ...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      inTransaction((store) => method(store, ...args));

  return {
    ...top,
    transaction: inTransaction,
    optimistic: (work) => inTransaction((store) => work(store)),
    createWorkItem: write((s, row, dispatch, event, history) => s.createWorkItems([{ row, dispatch, event, history }])),
    createWorkItems: write((s, items) => (items.length === 0 ? Promise.resolve() : s.createWorkItems(items))),
    findWithDispatches: async (id) => (await top.findManyWithDispatches([id]))[0],
    applyChange: write(async (s, change) => (await s.applyChanges([change]))[0]!),
    applyChanges: write((s, changes) => s.applyChanges(changes)),
    deleteWorkItem: write((s, id, version, event) => s.deleteWorkItem(id, version, event)),
    appendEvent: write((s, type, data, at) => s.appendEvent(type, data, at)),
  };
}

interface Appended {
  events: boolean;
  news: ReturnType<typeof createNewsCollector>;
  /** The items the transaction's changes finished, for the FinishedHook. */
  finished: FinishedItem[];
}

/** The statements, recording in `appended` each write that appended an event, and what it made claimable. */
function trackingAppends(statements: WorkStatements, appended: Appended): WorkStatements {
  return {
    ...statements,
    async createWorkItems(items) {
      await statements.createWorkItems(items);
      if (items.length > 0) appended.events = true;
      for (const item of items) appended.news.add(newsOfNewItem(item));
    },
    async applyChanges(changes) {
      const applied = await statements.applyChanges(changes);
      if (applied.some(Boolean)) appended.events = true;
      changes.forEach((change, i) => {
        if (!applied[i]) return;
        appended.news.add(change.wakes);
        appended.news.add(newsOfReleased(change.released, change.event.at));
        if (finishes(change)) {
          const { actor, role } = change.history;
          appended.finished.push({ id: change.id, status: change.set.status!, at: change.event.at, actor, role });
        }
      });
      return applied;
    },
    async deleteWorkItem(id, version, event) {
      const deleted = await statements.deleteWorkItem(id, version, event);
      if (deleted) appended.events = true;
      return deleted;
    },
    async appendEvent(type, data, at) {
      const id = await statements.appendEvent(type, data, at);
      appended.events = true;
      return id;
    },
  };
}

/** What a new item makes claimable: itself, queued or dispatched, when due at its creation. */
export function newsOfNewItem(item: NewItem) {
  const news = claimableAfter(null, item.row, item.row.created_at);
  // The item as written: a waiting claim can take it by its version without a read.
  if (news?.ready.length === 1)
    news.ready[0] = { ...news.ready[0]!, known: [{ row: item.row, dispatches: item.dispatch ? [item.dispatch] : [] }] };
  return news;
}
