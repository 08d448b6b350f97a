// The usage read on PostgreSQL: the hourly rows (every shard) summed per model, and per UTC
// day when asked.

import { CompiledQuery } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { type SumRow, USAGE_COUNTERS, type UsageStore, hourOf, usageSumOf } from './port.js';

const TOTALS = USAGE_COUNTERS.map((name) => `cast(sum(${name}) as bigint) AS ${name}`).join(', ');
const DAY = `to_char(hour at time zone 'UTC', 'YYYY-MM-DD')`;
const SUMS = `SELECT provider, model, ${TOTALS} FROM llm_usage_hourly WHERE hour >= $1 AND hour < $2 GROUP BY provider, model`;
const SUMS_BY_DAY = `SELECT provider, model, ${TOTALS}, ${DAY} AS day
  FROM llm_usage_hourly WHERE hour >= $1 AND hour < $2 GROUP BY provider, model, ${DAY}`;

export function createPostgresUsageStore(db: DatabaseHandle): UsageStore {
  return {
    async sums(since, until, byDay) {
      const { rows } = await db.executeQuery<SumRow>(
        CompiledQuery.raw(byDay ? SUMS_BY_DAY : SUMS, [hourOf(since), until]) as CompiledQuery<SumRow>,
      );
      return rows.map(usageSumOf);
    },
  };
}
