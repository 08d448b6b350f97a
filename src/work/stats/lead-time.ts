// Lead times are kept as a histogram with fixed, log-spaced buckets, so counts add up across
// hours, agents and instances and a percentile over any range is a sum of rows.

export const BUCKETS_PER_DOUBLING = 4;

/**
 * Bucket b holds the durations d (in milliseconds) with floor(4 * log2(d)) = b. The triggers of
 * migration 009 compute the same bucket in SQL.
 */
export function leadTimeBucket(ms: number): number {
  return Math.floor(BUCKETS_PER_DOUBLING * Math.log2(Math.max(ms, 1)));
}

/** The value a bucket stands for, in milliseconds: the geometric middle of its range, within 9% of the true one. */
export function bucketMiddleMs(bucket: number): number {
  return 2 ** ((bucket + 0.5) / BUCKETS_PER_DOUBLING);
}

/**
 * The q-quantile (0 < q ≤ 1) by nearest rank, in seconds rounded to the millisecond, from
 * counts per bucket; null when there are none.
 */
export function quantileSeconds(counts: ReadonlyMap<number, number>, q: number): number | null {
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (total <= 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(bucket) ?? 0;
    if (seen >= rank) return Math.round(bucketMiddleMs(bucket)) / 1000;
  }
  return null;
}
