import { describe, expect, it } from 'vitest';
import { createProviderLimiter } from '../../src/classify/provider-limiter.js';
import { RateLimitedError } from '../../src/shared/errors.js';

// The limiter on its own: the order in which waiting calls are served, and that nothing stays
// behind. The HTTP behaviour (429, Retry-After, callers apart) is in provider-limits.test.ts.

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** A few turns of the event loop: a call starts on a turn of its own (shared/turns.ts). */
const tick = async () => {
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe('provider limiter', () => {
  it('serves waiting callers in turn when the process-wide cap frees a slot, not the busiest caller first', async () => {
    const limiter = createProviderLimiter({ perCaller: 2, queue: 10, total: 2 });
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const call = (caller: string, name: string) => {
      const done = gate();
      gates.set(name, done);
      return limiter.reserve(caller).run(async () => {
        started.push(name);
        await done.promise;
      });
    };
    const runs = [call('a', 'a1'), call('a', 'a2'), call('a', 'a3'), call('a', 'a4'), call('b', 'b1'), call('b', 'b2')];
    await tick();
    expect(started).toEqual(['a1', 'a2']);
    expect(limiter.snapshot()).toEqual({ active: 2, waiting: 4, callers: 2 });
    gates.get('a1')!.open();
    await tick();
    // b waited for the process-wide cap since before a's slot freed: b goes first.
    expect(started).toEqual(['a1', 'a2', 'b1']);
    gates.get('a2')!.open();
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    for (const name of ['b1', 'a3', 'b2', 'a4']) {
      gates.get(name)?.open();
      await tick();
    }
    await Promise.all(runs);
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'b2', 'a4']);
    expect(limiter.snapshot()).toEqual({ active: 0, waiting: 0, callers: 0 });
  });

  it('counts reserved places against the line, gives released ones back, and forgets idle callers', async () => {
    const limiter = createProviderLimiter({ perCaller: 1, queue: 1, total: 10 });
    const first = limiter.reserve('a');
    const second = limiter.reserve('a');
    expect(() => limiter.reserve('a')).toThrow(RateLimitedError);
    second.release();
    second.release();
    const third = limiter.reserve('a');
    await Promise.all([first.run(async () => {}), third.run(async () => {})]);
    // release after run is a no-op, not a second give-back.
    first.release();
    expect(limiter.snapshot()).toEqual({ active: 0, waiting: 0, callers: 0 });
    await expect(first.run(async () => {})).rejects.toThrow(/once/);
  });

  it('frees the slot when the call fails', async () => {
    const limiter = createProviderLimiter({ perCaller: 1, queue: 0, total: 1 });
    await expect(limiter.reserve('a').run(async () => Promise.reject(new Error('provider down')))).rejects.toThrow(
      'provider down',
    );
    await expect(limiter.reserve('a').run(async () => 'ok')).resolves.toBe('ok');
    expect(limiter.snapshot().callers).toBe(0);
  });
});
