import { describe, expect, it } from 'vitest';
import { COUNT_INCRS, countLabels, moneyFormat, steppedData, yRange } from '../../web/src/lib/chart-axes.js';

// On a new desk the dashboard's charts misled: 0–100 USD for $0, 0.25 calls, the
// current hour drawn with no width. The axes' numbers, without a browser.

describe('the dashboard chart axes', () => {
  it('keep a small axis when every value is zero, not 0–100', () => {
    expect(yRange(0, 'money')).toEqual([0, 1]);
    expect(yRange(0, 'count')).toEqual([0, 1]);
    expect(yRange(Number.NaN, 'count')).toEqual([0, 1]);
  });

  it('end a count axis on a whole number, a money axis on a round one just above the top', () => {
    expect(yRange(1, 'count')).toEqual([0, 2]);
    expect(yRange(3, 'count')).toEqual([0, 5]);
    expect(yRange(9, 'count')).toEqual([0, 10]);
    expect(yRange(0.0109, 'money')).toEqual([0, 0.02]);
    const [, top] = yRange(0.0109, 'money');
    expect(top).toBeGreaterThan(0.0109);
  });

  it('never label a count with a fraction', () => {
    expect(COUNT_INCRS.every(Number.isInteger)).toBe(true);
    expect(countLabels([0, 0.25, 0.5, 1])).toEqual(['0', '', '', '1']);
  });

  it('label money with the decimals its scale needs', () => {
    expect(moneyFormat('USD', 1)(0)).toMatch(/\$0$/);
    expect(moneyFormat('USD', 0.02)(0.0025)).toMatch(/\$0\.0025$/);
    expect(moneyFormat('USD', 40)(20)).toMatch(/\$20$/);
  });

  it('give the last period of a stepped chart its width', () => {
    expect(steppedData([0, 3600, 7200], [[0, 0, 9]])).toEqual([
      [0, 3600, 7200, 10800],
      [0, 0, 9, 9],
    ]);
    expect(steppedData([], [[]])).toEqual([[], []]);
  });
});
