import { describe, expect, it } from 'vitest';
import { takeTurn } from '../../src/shared/process/turns.js';

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('takeTurn', () => {
  it('lets callers go in arrival order, a few per turn of the loop, with timers running in between', async () => {
    const order: number[] = [];
    // Each continuation holds the loop for a while, as building an SDK request does.
    const callers = Array.from({ length: 80 }, (_, n) =>
      takeTurn().then(() => {
        order.push(n);
        spin(0.5);
      }),
    );
    let doneWhenTimerRan = -1;
    setTimeout(() => (doneWhenTimerRan = order.length), 1);
    await Promise.all(callers);
    expect(order).toEqual(Array.from({ length: 80 }, (_, n) => n));
    // Released all at once, 80 × 0.5 ms would have run before the timer: it ran after a few turns.
    expect(doneWhenTimerRan).toBeGreaterThan(0);
    expect(doneWhenTimerRan).toBeLessThanOrEqual(24);
  });
});
