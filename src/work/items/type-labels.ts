// Work item types are free text chosen by callers, so every place that turns them into a key of
// something kept (a metric label, a line of /work/stats) keeps only the most frequent ones and
// counts the rest together as `other`: without the bound, made-up types would grow /metrics without end.

/** What the types beyond the bound are counted as. A real type of this name is counted there too. */
export const OTHER_TYPE = 'other';

export const DEFAULT_MAX_TYPES = 50;

/**
 * The `max` most frequent of `totals` (items per type), incumbents first on ties, then by name.
 * "Most frequent" is the items of the type in the desk now, all statuses together: the maintained
 * counts of src/work/stats, read without a scan. The tie order makes the same counts always give
 * the same set, and a label changes hands only when a newcomer has strictly more items than the
 * least frequent holder.
 */
export function mostFrequentTypes(
  totals: ReadonlyMap<string, number>,
  max: number,
  incumbents: ReadonlySet<string> = new Set(),
): string[] {
  return [...totals.entries()]
    .filter(([type, n]) => n > 0 && type !== OTHER_TYPE)
    .sort(
      ([a, na], [b, nb]) =>
        nb - na || Number(incumbents.has(b)) - Number(incumbents.has(a)) || (a < b ? -1 : a > b ? 1 : 0),
    )
    .slice(0, max)
    .map(([type]) => type);
}

/** Items per type, all statuses together. */
export function totalsByType(rows: Iterable<{ type: string; count: number }>): Map<string, number> {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row.type, (totals.get(row.type) ?? 0) + row.count);
  return totals;
}

export interface TypeLabels {
  /** The label for an item of `type`: the type itself if it holds a place, else `other`. */
  of(type: string): string;
  /** Ranks again from the counts of items per type; answers the types that lost their place. */
  rank(totals: ReadonlyMap<string, number>): string[];
  /** The types that hold a place now. */
  labelled(): ReadonlySet<string>;
}

/**
 * The process's set of labelled types for the work metrics. A type seen between two rankings
 * gets a place at once while fewer than `max` are held (a small desk never sees `other`); the
 * ranking at each scrape then keeps the `max` most frequent, and a holder loses its place only to
 * a type with more items.
 */
export function createTypeLabels(max: number): TypeLabels {
  let held = new Set<string>();
  return {
    of(type) {
      if (held.has(type)) return type;
      if (type === OTHER_TYPE || held.size >= max) return OTHER_TYPE;
      held.add(type);
      return type;
    },
    rank(totals) {
      const next = new Set(mostFrequentTypes(totals, max, held));
      // Room left: holders without items now (all deleted, or counted after this read) stay.
      for (const type of [...held].sort()) if (next.size < max) next.add(type);
      const lost = [...held].filter((type) => !next.has(type));
      held = next;
      return lost;
    },
    labelled: () => held,
  };
}
