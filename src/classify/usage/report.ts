// The usage report: the window asked for, the hourly sums from the store, and the price table
// applied. Both services answer it (GET /classify/usage, and GET /ui-api/classify-usage on the
// work service for the web UI): they share the database, so they share this code.

import type { PriceTable } from '../../shared/config/config.js';
import { ValidationError } from '../../shared/errors.js';
import { costOf, priceOf } from './records.js';
import { USAGE_COUNTERS, type UsageCounters, type UsageStore, type UsageSum } from './store/port.js';

export const USAGE_GROUPS = ['day', 'model'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageQuery {
  since?: string;
  until?: string;
  group_by?: UsageGroup;
}

export interface UsageFigures extends UsageCounters {
  /** USD. Rows of a model without a price: null. Days and totals: what is priced. */
  estimated_cost: number | null;
  /** Calls to models the price table does not know: their tokens are in the counts, not in the cost. */
  unpriced_calls: number;
}

export type UsageRow =
  (UsageFigures & { day: string; estimated_cost: number }) | (UsageFigures & { provider: string; model: string });

export interface UsageReport {
  since: string;
  until: string;
  group_by: UsageGroup;
  currency: 'USD';
  totals: UsageFigures & { estimated_cost: number };
  rows: UsageRow[];
}

export interface UsageReader {
  report(query: UsageQuery): Promise<UsageReport>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The default window: today and the six days before it, whole UTC days, one row each. */
const DEFAULT_DAYS = 7;
/** A day chart longer than this is a mistake, not a chart: every day is a row. */
export const MAX_DAY_ROWS = 366;
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

export function createUsageReader(
  store: UsageStore,
  prices: PriceTable,
  now: () => Date = () => new Date(),
): UsageReader {
  return {
    async report(query) {
      const groupBy = query.group_by ?? 'day';
      const until = query.until === undefined ? now().getTime() : instant('until', query.until);
      const since =
        query.since === undefined ? startOfDay(until - 1) - (DEFAULT_DAYS - 1) * DAY_MS : instant('since', query.since);
      if (since > until) throw ValidationError.of('since', 'must not be later than until');
      const days = daysOf(since, until);
      if (groupBy === 'day' && days.length > MAX_DAY_ROWS) {
        throw ValidationError.of(
          'since',
          `group_by=day covers at most ${MAX_DAY_ROWS} days; narrow since and until, or group by model`,
        );
      }
      const sinceText = new Date(since).toISOString();
      const untilText = new Date(until).toISOString();
      const sums = since === until ? [] : await store.sums(sinceText, untilText, groupBy === 'day');
      const rows = groupBy === 'day' ? byDay(days, sums, prices) : byModel(sums, prices);
      return {
        since: sinceText,
        until: untilText,
        group_by: groupBy,
        currency: 'USD',
        totals: { ...figuresOf(sums, prices), estimated_cost: rounded(pricedCost(sums, prices)) },
        rows,
      };
    },
  };
}

function instant(field: 'since' | 'until', text: string): number {
  const value = Date.parse(text);
  if (Number.isNaN(value)) throw ValidationError.of(field, 'must be an ISO 8601 date-time, e.g. 2026-01-31T00:00:00Z');
  if (value < EARLIEST || value > LATEST) throw ValidationError.of(field, 'must lie between 1970 and 9999');
  return value;
}

function startOfDay(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

/** The UTC days the window [since, until) touches, oldest first. */
function daysOf(since: number, until: number): string[] {
  const days: string[] = [];
  if (until <= since) return days;
  for (let day = startOfDay(since); day < until; day += DAY_MS) {
    days.push(new Date(day).toISOString().slice(0, 10));
    // Stops early: the caller refuses the window anyway, and a century of days is a lot of strings.
    if (days.length > MAX_DAY_ROWS) break;
  }
  return days;
}

function zero(): UsageCounters {
  return Object.fromEntries(USAGE_COUNTERS.map((name) => [name, 0])) as UsageCounters;
}

function pricedCost(sums: readonly UsageSum[], prices: PriceTable): number {
  let cost = 0;
  for (const sum of sums) {
    const price = priceOf(prices, sum.provider, sum.model);
    if (price) cost += costOf(price, sum);
  }
  return cost;
}

function figuresOf(sums: readonly UsageSum[], prices: PriceTable): UsageFigures {
  const counters = zero();
  let unpriced = 0;
  let anyUnpriced = false;
  for (const sum of sums) {
    for (const name of USAGE_COUNTERS) counters[name] += sum[name];
    if (!priceOf(prices, sum.provider, sum.model)) {
      unpriced += sum.calls;
      anyUnpriced = true;
    }
  }
  // One model's row: its cost is unknown rather than 0 when it has no price.
  const oneUnpricedModel = sums.length === 1 && anyUnpriced;
  return {
    ...counters,
    estimated_cost: oneUnpricedModel ? null : rounded(pricedCost(sums, prices)),
    unpriced_calls: unpriced,
  };
}

function byDay(days: readonly string[], sums: readonly UsageSum[], prices: PriceTable): UsageRow[] {
  const perDay = new Map<string, UsageSum[]>(days.map((day) => [day, []]));
  for (const sum of sums) perDay.get(sum.day ?? '')?.push(sum);
  return days.map((day) => {
    const figures = figuresOf(perDay.get(day)!, prices);
    // A day's cost is what is priced; unpriced_calls says what is left out.
    return { day, ...figures, estimated_cost: rounded(pricedCost(perDay.get(day)!, prices)) };
  });
}

function byModel(sums: readonly UsageSum[], prices: PriceTable): UsageRow[] {
  return [...sums]
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model))
    .map((sum) => ({ provider: sum.provider, model: sum.model, ...figuresOf([sum], prices) }));
}

/** Micro-dollars: enough for a token's price, and free of float noise like 0.30000000000000004. */
function rounded(cost: number): number {
  return Math.round(cost * 1_000_000) / 1_000_000;
}
