import { describe, expect, it } from 'vitest';
import { waitMs } from '../../src/work/agent-loop/claims.js';

// A long poll's length: short waits are kept to the millisecond (clients and tests time them);
// long ones end somewhere in their last tenth, so a fleet started together comes back spread out.

describe('waitMs', () => {
  it('keeps a wait under 10 s whole', () => {
    expect(waitMs(1, () => 0.99)).toBe(1_000);
    expect(waitMs(9, () => 0.5)).toBe(9_000);
  });

  it('ends a wait of 10 s or more within its last tenth', () => {
    expect(waitMs(30, () => 0)).toBe(30_000);
    expect(waitMs(30, () => 0.5)).toBe(28_500);
    expect(waitMs(30, () => 0.999_999)).toBe(27_000);
    expect(waitMs(10, () => 0.5)).toBe(9_500);
  });

  it('spreads a thousand waits of 30 s over the three seconds', () => {
    const ends = Array.from({ length: 1_000 }, () => waitMs(30));
    expect(Math.min(...ends)).toBeGreaterThanOrEqual(27_000);
    expect(Math.max(...ends)).toBeLessThanOrEqual(30_000);
    // No more than a fifth of them in any one 300 ms slice.
    const slices = new Map<number, number>();
    for (const end of ends)
      slices.set(Math.floor((end - 27_000) / 300), (slices.get(Math.floor((end - 27_000) / 300)) ?? 0) + 1);
    expect(Math.max(...slices.values())).toBeLessThan(200);
  });
});
