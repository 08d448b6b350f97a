// The port of LLM usage: the rows an event writes, which the dedupe stores write with the classification so
// recording costs no round trip of its own, and the read of the hourly rollup. One implementation per
// database (sqlite.ts, postgres.ts); index.ts picks one.

import type { CallResult, UsageEvent } from '../records.js';

/** The figures the rollup adds up. */
export const USAGE_COUNTERS = ['calls', 'input_tokens', 'output_tokens', 'duplicates_served', 'fallbacks'] as const;
export type UsageCounters = Record<(typeof USAGE_COUNTERS)[number], number>;

/** Sums for one model, and for one day when the read asked for days. */
export interface UsageSum extends UsageCounters {
  /** YYYY-MM-DD (UTC); null when not grouped by day. */
  day: string | null;
  provider: string;
  model: string;
}

export interface UsageStore {
  /**
   * Sums per model (and per UTC day) over the hours that overlap [since, until): the hourly rollup, never the
   * calls, so seven days are at most 168 hours × models × shards rows, whatever the traffic was.
   */
  sums(since: string, until: string, byDay: boolean): Promise<UsageSum[]>;
}

/** The hour an event counts in: the rollup's key, the same text on both databases. */
export function hourOf(at: string): string {
  return `${new Date(at).toISOString().slice(0, 13)}:00:00.000Z`;
}

/** What one event adds to its hour's row. */
export function countersOf(event: UsageEvent): UsageCounters {
  if (event.kind === 'duplicate')
    return { calls: 0, input_tokens: 0, output_tokens: 0, duplicates_served: 1, fallbacks: 0 };
  const { call } = event;
  return {
    calls: call.attempts,
    input_tokens: call.input_tokens,
    output_tokens: call.output_tokens,
    duplicates_served: 0,
    fallbacks: call.result === 'ok' ? 0 : 1,
  };
}

/** An llm_calls row as written (its id is the database's). */
export interface CallRow {
  at: string;
  provider: string;
  model: string;
  result: CallResult;
  attempts: number;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
}

/** The columns a call's row is written with, in one order; the type makes a missing one a compile error. */
const CALL_COLUMN_SET: Record<keyof CallRow, true> = {
  at: true,
  provider: true,
  model: true,
  result: true,
  attempts: true,
  input_tokens: true,
  output_tokens: true,
  latency_ms: true,
};
export const CALL_COLUMNS = Object.keys(CALL_COLUMN_SET) as (keyof CallRow)[];

/** The call's own row; null for a duplicate, which made no call. */
export function callRowOf(event: UsageEvent): CallRow | null {
  if (event.kind !== 'call') return null;
  const { call } = event;
  return {
    at: event.at,
    provider: call.provider,
    model: call.model,
    result: call.result,
    attempts: call.attempts,
    input_tokens: call.input_tokens,
    output_tokens: call.output_tokens,
    latency_ms: Math.max(0, Math.round(call.latency_ms)),
  };
}

/** A row of the sums as either database returns it (the counters may come back as text). */
export type SumRow = Record<(typeof USAGE_COUNTERS)[number], number | string> & {
  provider: string;
  model: string;
  day?: string;
};

export function usageSumOf(row: SumRow): UsageSum {
  return {
    day: row.day ?? null,
    provider: row.provider,
    model: row.model,
    ...(Object.fromEntries(USAGE_COUNTERS.map((name) => [name, Number(row[name])])) as UsageCounters),
  };
}
