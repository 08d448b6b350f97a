// Turns on the event loop: a burst that becomes ready at once (a group commit's answers, a line of provider
// calls let go) runs a few continuations per turn, so timers and other requests' I/O run in between
// instead of waiting behind hundreds of short steps.

/**
 * Continuations let go per turn: a few milliseconds of work for the costliest (an SDK call). By count, not
 * time: a continuation runs on through several microtasks, so its cost is known only once the turn is over.
 */
const PER_TURN = 8;

const waiting: Array<() => void> = [];
let scheduled = false;

function releaseSome(): void {
  for (const resolve of waiting.splice(0, PER_TURN)) resolve();
  // Queued from inside this immediate, the next one runs on the next turn of the loop.
  if (waiting.length > 0) setImmediate(releaseSome);
  else scheduled = false;
}

/** Resolves on a later turn of the event loop, in arrival order, a few callers per turn. */
export function takeTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (scheduled) return;
    scheduled = true;
    setImmediate(releaseSome);
  });
}
