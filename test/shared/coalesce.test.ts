import { describe, expect, it } from 'vitest';
import { createCoalescer } from '../../src/shared/db/coalesce.js';

// The batches a coalescer forms from calls that arrive together, recorded by a `run` that
// answers each input with itself.

interface Call {
  name: string;
  keys: string[];
}

function recording() {
  const batches: string[][] = [];
  const coalesced = createCoalescer<Call, string>({
    keyOf: () => 'all',
    conflictOf: (call) => call.keys,
    run: async (calls) => {
      batches.push(calls.map((call) => call.name));
      return calls.map((call) => call.name);
    },
  });
  return { batches, coalesced };
}

describe('createCoalescer', () => {
  it('keeps calls that share any conflict key in different batches, each answered with its own output', async () => {
    const { batches, coalesced } = recording();
    const answers = await Promise.all([
      coalesced({ name: 'a', keys: ['thread 1', 'record 1'] }),
      coalesced({ name: 'b', keys: ['thread 2', 'record 1'] }),
      coalesced({ name: 'c', keys: ['thread 1', 'record 3'] }),
      coalesced({ name: 'd', keys: ['thread 4', 'record 4'] }),
    ]);
    expect(answers).toEqual(['a', 'b', 'c', 'd']);
    expect(batches).toEqual([
      ['a', 'd'],
      ['b', 'c'],
    ]);
  });

  it('never lets a call overtake an earlier one it shares a key with, even through a third', async () => {
    const { batches, coalesced } = recording();
    await Promise.all([
      coalesced({ name: 'a', keys: ['x'] }),
      // Waits for a (x); c shares y with b only, so it must wait for b, not run beside a.
      coalesced({ name: 'b', keys: ['x', 'y'] }),
      coalesced({ name: 'c', keys: ['y'] }),
    ]);
    expect(batches).toEqual([['a'], ['b'], ['c']]);
  });
});
