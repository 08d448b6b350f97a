/**
 * Runs `prepare` on up to `width` items at a time and `commit` on each result strictly in the
 * items' order, one after another: classification overlaps, outcomes (and the cursor) advance
 * in arrival order. The first failure stops the run and is thrown; results prepared ahead of it
 * are dropped (preparing has no effect a second run cannot reuse). `stopped` ends the run early
 * between two commits.
 */
export async function runOrdered<T, P>(
  items: readonly T[],
  width: number,
  prepare: (item: T) => Promise<P>,
  commit: (item: T, prepared: P) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  const pending: Array<Promise<P>> = [];
  let launched = 0;
  try {
    for (let index = 0; index < items.length; index += 1) {
      while (pending.length < width && launched < items.length) {
        const started = prepare(items[launched]!);
        // Awaited in turn below; until then a rejection must not count as unhandled.
        started.catch(() => undefined);
        pending.push(started);
        launched += 1;
      }
      const prepared = await pending.shift()!;
      if (stopped()) return;
      await commit(items[index]!, prepared);
    }
  } finally {
    // Let the ones still running finish before the caller moves on (they may hold a connection).
    await Promise.allSettled(pending);
  }
}
