import { type ClaimAsk, planClaim } from '../items/change-rules.js';
import { writeOf } from '../items/changes.js';
import type { Actor } from '../items/view.js';
import type { ClaimQuery, ItemWithDispatches, WorkStore } from '../store/port.js';

// How a batch of claims is written: the candidates are read, planClaim plans each, and each is
// written as a version-guarded change; a claimer whose write lost a race reads again.
// Why no locking read: see docs/design-decisions.md, "Claims without a locking transaction".

/** How often one claimer reads again after losing its item to another writer. */
const MAX_ROUNDS = 20;

export interface Claimer extends ClaimAsk {
  actor: Actor;
}

export interface ClaimedItem extends ItemWithDispatches {
  /** It was already dispatched to the claimer (not taken from the queue). */
  own: boolean;
}

/**
 * One answer per claimer, in order: the item it now holds, or null when nothing was left for it.
 * `onRead` counts the reads of candidates (the claim statements, for the metrics). The write is
 * stamped by `clock` after its read, so an item is never dispatched "before" the commit that
 * made it claimable (a dependency's completion on another instance, say).
 */
export function claimItems(
  store: WorkStore,
  query: ClaimQuery,
  claimers: readonly Claimer[],
  onRead: () => void = () => {},
  clock: () => string = () => query.now,
): Promise<(ClaimedItem | null)[]> {
  return store.optimistic(async (tx) => {
    const answers: (ClaimedItem | null)[] = claimers.map(() => null);
    let pending = claimers.map((_, index) => index);
    for (let round = 1; pending.length > 0 && round <= MAX_ROUNDS; round += 1) {
      onRead();
      const candidates = await tx.claimCandidates(
        query,
        pending.map((index) => claimers[index]!.agent),
      );
      const queued = [...candidates.queued];
      const read = clock();
      const at = read > query.now ? read : query.now;
      const writes = pending.flatMap((index, position) => {
        const mine = candidates.own[position];
        const current = mine ?? queued.shift();
        if (!current) return [];
        const claimer = claimers[index]!;
        return [
          { index, own: Boolean(mine), ...writeOf(current, planClaim(current.row, claimer, at), claimer.actor, at) },
        ];
      });
      const applied = writes.length === 0 ? [] : await tx.applyChanges(writes.map(({ change }) => change));
      pending = [];
      writes.forEach(({ index, own, after }, position) => {
        if (applied[position]) answers[index] = { ...after, own };
        else pending.push(index);
      });
    }
    return answers;
  });
}
