// Turns on the event loop. A burst of requests that all become ready at once (a group commit
// resolving 256 transactions, a line of provider calls let go) would otherwise run their next
// steps back to back in one go: each is short, but hundreds of them hold the loop for hundreds
// of milliseconds, and every timer and every other request waits that long (the event loop
// must stay responsive with hundreds of classifications in flight). `takeTurn` queues the
// caller and lets the queue go a few at a time, one group per turn of the loop, so timers and
// I/O run in between.
//
// By count, not by time: a released continuation runs on through several microtasks, queued
// behind anything that would read the clock, so its cost is only known once the turn is over.

/** Continuations let go per turn: a few milliseconds of work for the costliest (an SDK call). */
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
