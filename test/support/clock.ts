// A clock the test moves by hand, for the work service's `now` (WorkAppDeps.now): leases,
// backoff and expiry are then tested without waiting for real time to pass.

export interface TestClock {
  now(): Date;
  /** Moves the clock on by `ms`. */
  advance(ms: number): void;
  /** Sets the clock to `at` (ms since the epoch); never backwards. */
  setTo(at: number): void;
}

/** Starts at the real time (the stores and tokens compare with it), then moves only when told. */
export function createTestClock(start = Date.now()): TestClock {
  let at = start;
  return {
    now: () => new Date(at),
    advance(ms) {
      at += ms;
    },
    setTo(next) {
      if (next < at) throw new Error('the test clock never goes backwards');
      at = next;
    },
  };
}

/**
 * The real time plus every jump the test made: for tests where timers must keep running (long
 * polls) but a wait for a due time is a jump instead of a sleep.
 */
export function createJumpingClock(): Pick<TestClock, 'now' | 'advance'> {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}
