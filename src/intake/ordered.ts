/** Outcomes written in one transaction at most: bounds how long a commit holds the database. */
export const COMMIT_BATCH = 64;

interface Pending<P> {
  promise: Promise<Awaited<P>>;
  /** Set once the promise has fulfilled, so a ready run can be taken without waiting. */
  value?: { prepared: Awaited<P> };
}

/**
 * Runs `prepare` on up to `width` items at a time and `commit` on the results strictly in the
 * items' order: classification overlaps, outcomes (and the cursor) advance in arrival order.
 * Each commit takes the next result and every one after it that is already prepared, up to
 * `maxBatch`: one message at a time when mail trickles in, long runs when a backfill has
 * prepared ahead. The first failure stops the run and is thrown; results prepared ahead of it
 * are dropped (preparing has no effect a second run cannot reuse). `stopped` ends the run early
 * between two commits.
 */
export async function runOrdered<T, P>(
  items: readonly T[],
  width: number,
  maxBatch: number,
  prepare: (item: T) => Promise<Awaited<P>>,
  commit: (batch: Array<{ item: T; prepared: Awaited<P> }>) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  const pending: Array<Pending<P>> = [];
  let launched = 0;
  let committed = 0;
  const fill = () => {
    while (pending.length < width && launched < items.length) {
      const entry: Pending<P> = { promise: prepare(items[launched]!) };
      // Awaited in turn below; until then a rejection must not count as unhandled.
      entry.promise.then(
        (prepared) => (entry.value = { prepared }),
        () => undefined,
      );
      pending.push(entry);
      launched += 1;
    }
  };
  try {
    while (committed < items.length) {
      fill();
      const batch = [{ item: items[committed]!, prepared: await pending.shift()!.promise }];
      while (batch.length < maxBatch && pending[0]?.value) {
        batch.push({ item: items[committed + batch.length]!, prepared: pending.shift()!.value!.prepared });
      }
      if (stopped()) return;
      // The next ones classify while this batch is written.
      fill();
      await commit(batch);
      committed += batch.length;
    }
  } finally {
    // Let the ones still running finish before the caller moves on (they may hold a connection).
    await Promise.allSettled(pending.map((entry) => entry.promise));
  }
}
