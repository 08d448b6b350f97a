// The SQL of LLM usage (migration 008). Writes are query builders the dedupe store runs in the
// transaction (SQLite) or the statement (PostgreSQL) that stores the classification, so
// recording costs no round trip of its own. Reads sum the hourly rollup, never the calls:
// seven days are at most 168 hours × models × shards rows, whatever the traffic was.

import { type Generated, type Kysely, type QueryCreator, sql } from 'kysely';
import { type Database, DIALECTS } from '../shared/db.js';
import type { CallResult, UsageEvent } from './usage.js';

interface CallRow {
  id: Generated<number>;
  at: string;
  provider: string;
  model: string;
  result: CallResult;
  attempts: number;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
}

interface HourRow {
  hour: string;
  provider: string;
  model: string;
  shard: number;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  duplicates_served: number;
  fallbacks: number;
}

/** Any query creator (a Kysely, a transaction, a CTE chain) over a schema holding these tables. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Creator = QueryCreator<any>;

export interface UsageTables {
  llm_calls: CallRow;
  llm_usage_hourly: HourRow;
}

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

/**
 * Concurrent PostgreSQL transactions adding to one (hour, model) row would queue on its lock
 * until each commits; spread over this many rows by connection they do not. Readers sum them.
 */
export const POSTGRES_USAGE_SHARDS = 16;

/** The hour an event counts in: the rollup's key, the same text on both databases. */
export function hourOf(at: string): string {
  return `${new Date(at).toISOString().slice(0, 13)}:00:00.000Z`;
}

function countersOf(event: UsageEvent): UsageCounters {
  if (event.kind === 'duplicate') return { calls: 0, input_tokens: 0, output_tokens: 0, duplicates_served: 1, fallbacks: 0 };
  const { call } = event;
  return {
    calls: call.attempts,
    input_tokens: call.input_tokens,
    output_tokens: call.output_tokens,
    duplicates_served: 0,
    fallbacks: call.result === 'ok' ? 0 : 1,
  };
}

/** Adds the event to its hour's row. */
export function addToHour(on: Creator, event: UsageEvent, postgres: boolean) {
  const creator = on as unknown as QueryCreator<UsageTables>;
  const counters = countersOf(event);
  const { provider, model } = event.kind === 'call' ? event.call : event;
  return creator
    .insertInto('llm_usage_hourly')
    .values({
      hour: hourOf(event.at),
      provider,
      model,
      // The connection's backend is busy with this transaction only, so two transactions in
      // flight never share a shard unless their pids collide modulo the shard count.
      shard: postgres ? sql<number>`pg_backend_pid() % ${sql.lit(POSTGRES_USAGE_SHARDS)}` : 0,
      ...counters,
    })
    .onConflict((conflict) =>
      conflict.columns(['hour', 'provider', 'model', 'shard']).doUpdateSet(
        Object.fromEntries(USAGE_COUNTERS.map((name) => [name, sql<number>`llm_usage_hourly.${sql.ref(name)} + excluded.${sql.ref(name)}`])),
      ),
    );
}

/** The call's own row; null for a duplicate, which made no call. */
export function insertCall(on: Creator, event: UsageEvent) {
  const creator = on as unknown as QueryCreator<UsageTables>;
  if (event.kind !== 'call') return null;
  const { call } = event;
  return creator.insertInto('llm_calls').values({
    at: event.at,
    provider: call.provider,
    model: call.model,
    result: call.result,
    attempts: call.attempts,
    input_tokens: call.input_tokens,
    output_tokens: call.output_tokens,
    latency_ms: Math.max(0, Math.round(call.latency_ms)),
  });
}

/** On SQLite, inside a transaction already open: the rows written one after the other. */
export async function writeUsage(db: Creator, event: UsageEvent, postgres: boolean): Promise<void> {
  await insertCall(db, event)?.execute();
  await addToHour(db, event, postgres).execute();
}

/**
 * PostgreSQL: the usage writes as data-modifying CTEs in front of the caller's next statement,
 * which then writes the usage in its own round trip and commit. They run whether or not that
 * statement reads them.
 */
export function withUsage<C extends Creator>(creator: C, event: UsageEvent): C {
  const usage = creator as unknown as QueryCreator<UsageTables>;
  const withHour = usage.with('usage_hour', (inner) => addToHour(inner, event, true).returning('hour'));
  const call = event.kind === 'call' ? withHour.with('usage_call', (inner) => insertCall(inner, event)!.returning('id')) : withHour;
  return call as unknown as C;
}

export interface UsageStore {
  /** Sums per model (and per UTC day) over the hours that overlap [since, until). */
  sums(since: string, until: string, byDay: boolean): Promise<UsageSum[]>;
}

export function createUsageStore(database: Pick<Database, 'kysely' | 'dialect'>): UsageStore {
  const db = database.kysely as Kysely<UsageTables>;
  const postgres = database.dialect === DIALECTS.postgres;
  const total = (name: (typeof USAGE_COUNTERS)[number]) => sql<number>`cast(sum(${sql.ref(name)}) as bigint)`.as(name);
  const day = postgres ? sql<string>`to_char(hour at time zone 'UTC', 'YYYY-MM-DD')` : sql<string>`substr(hour, 1, 10)`;

  return {
    async sums(since, until, byDay) {
      let query = db
        .selectFrom('llm_usage_hourly')
        .select(['provider', 'model', ...USAGE_COUNTERS.map(total)])
        .where('hour', '>=', hourOf(since))
        .where('hour', '<', until)
        .groupBy(['provider', 'model']);
      if (byDay) query = query.select(day.as('day')).groupBy(day);
      const rows = (await query.execute()) as Array<Omit<UsageSum, 'day'> & { day?: string }>;
      return rows.map((row) => ({
        day: row.day ?? null,
        provider: row.provider,
        model: row.model,
        ...(Object.fromEntries(USAGE_COUNTERS.map((name) => [name, Number(row[name])])) as UsageCounters),
      }));
    },
  };
}

/** Forgets the per-call rows older than `before`; the hourly totals stay (cost history). */
export async function purgeCallsBefore(on: Creator, before: string): Promise<number> {
  const db = on as unknown as QueryCreator<UsageTables>;
  const result = await db.deleteFrom('llm_calls').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
