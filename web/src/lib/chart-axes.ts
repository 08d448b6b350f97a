// The numbers behind the dashboard's chart axes, kept apart from uPlot so they can be tested
// without a browser. A chart of counts on a new desk once read 0–100 for nothing and 0.25 calls.

/** Whole-number tick steps for counts: uPlot picks the first that spaces the ticks well. */
export const COUNT_INCRS = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000,
];

/** The y axis: from zero to a round number a little above the highest value; 0–1 when all are zero. */
export function yRange(max: number, kind: 'count' | 'money'): [number, number] {
  if (!(max > 0)) return [0, 1];
  const target = max * 1.05;
  const magnitude = 10 ** Math.floor(Math.log10(target));
  const top = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((v) => v >= target) ?? 10 * magnitude;
  // A count axis ends on a whole number (3 calls: 0–4, not 0–3.15).
  return [0, kind === 'count' ? Math.max(1, Math.ceil(top)) : top];
}

/** Tick labels of a count axis: whole numbers only (uPlot may offer a fraction near the top). */
export function countLabels(ticks: number[]): string[] {
  return ticks.map((t) => (Number.isInteger(t) ? String(t) : ''));
}

/** Money ticks: as many decimals as the scale needs ($0, $0.0025, $12). */
export function moneyFormat(currency: string, max: number): (v: number) => string {
  const digits = max >= 10 ? 0 : max >= 1 ? 2 : 4;
  try {
    const f = new Intl.NumberFormat(undefined, {
      style: 'currency',
      currency,
      minimumFractionDigits: 0,
      maximumFractionDigits: digits,
    });
    return (v) => f.format(v);
  } catch {
    return (v) => `${v.toFixed(digits)} ${currency}`;
  }
}

/** The spacing of the points, in seconds (a day when there is only one). */
export const period = (times: number[]) => (times.length > 1 ? times[1]! - times[0]! : 86_400);

/**
 * The points a stepped chart draws. A step holds a value until the next point, so the last period
 * would have no width: a closing point one period on repeats it, and the current hour shows as one.
 */
export function steppedData(times: number[], columns: (number | null)[][]): [number[], ...(number | null)[][]] {
  if (times.length === 0) return [times, ...columns];
  return [[...times, times.at(-1)! + period(times)], ...columns.map((values) => [...values, values.at(-1) ?? null])];
}
