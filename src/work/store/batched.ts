import { createCoalescer } from '../../shared/db/coalesce.js';
import { createNewsCollector, newsOfReleased } from '../agent-loop/claimable.js';
import {
  type CommitListener,
  type ItemChange,
  type WorkStatements,
  type WorkStore,
  changeShape,
  finishes,
} from './port.js';
import { newsOfNewItem } from './transactional.js';

// The decorator that batches a PostgreSQL store: the calls that arrive together run as one
// statement per batch (shared/coalesce.ts), so one round trip and one commit serve many agents.

/**
 * New items, reads of items with their logs, and guarded changes are each coalesced; a change of
 * two statements (closing a dispatch entry and opening the next) goes to the store beneath, which
 * runs it in a transaction. With `finishedInTransaction`, a batch that finishes an item runs in
 * one transaction of the store beneath, whose FinishedHook writes what finishing writes beside it
 * (the conversation's open question closed).
 */
export function batched(
  store: WorkStore,
  top: WorkStatements,
  onEventsCommitted: CommitListener,
  finishedInTransaction = false,
): WorkStore {
  const create = createCoalescer({
    keyOf: () => 'create',
    run: async (items: Parameters<WorkStatements['createWorkItems']>[0][number][]) => {
      await top.createWorkItems(items);
      const news = createNewsCollector();
      for (const item of items) news.add(newsOfNewItem(item));
      onEventsCommitted(news.take());
      return items.map(() => undefined);
    },
  });
  const read = createCoalescer({ keyOf: () => 'read', run: (ids: string[]) => top.findManyWithDispatches(ids) });
  const change = createCoalescer({
    keyOf: changeShape,
    // No item twice in one statement.
    conflictOf: (c: ItemChange) => c.id.toLowerCase(),
    run: (changes: ItemChange[]) =>
      finishedInTransaction && changes.some(finishes) ? store.applyChanges(changes) : applyAtTop(changes),
  });

  async function applyAtTop(changes: readonly ItemChange[]): Promise<boolean[]> {
    const applied = await top.applyChanges(changes);
    if (applied.some(Boolean)) {
      const news = createNewsCollector();
      changes.forEach((change, i) => {
        if (!applied[i]) return;
        news.add(change.wakes);
        news.add(newsOfReleased(change.released, change.event.at));
      });
      onEventsCommitted(news.take());
    }
    return applied;
  }

  const batchedStore: WorkStore = {
    ...store,
    // At the top level: each statement is atomic by itself, and the claim's writes are guarded by
    // the versions it read.
    optimistic: (work) => work(batchedStore),
    createWorkItem: (row, dispatch, event, history) => create({ row, dispatch, event, history }),
    findWithDispatches: read,
    applyChange: (c) => (isOneStatement(c) ? change(c) : store.applyChange(c)),
    applyChanges: (changes) =>
      changes.every(isOneStatement) && !(finishedInTransaction && changes.some(finishes))
        ? applyAtTop(changes)
        : store.applyChanges(changes),
  };
  return batchedStore;
}

/** True unless the change closes a dispatch entry and opens the next (two statements). */
function isOneStatement(change: ItemChange): boolean {
  return !(change.closeDispatch && change.openDispatch);
}
