// The usage read on SQLite: the hourly rows summed per model, and per day when asked. The hour
// is ISO text here, so its day is its first ten characters.

import { CompiledQuery } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { type SumRow, USAGE_COUNTERS, type UsageStore, hourOf, usageSumOf } from './port.js';

const TOTALS = USAGE_COUNTERS.map((name) => `cast(sum(${name}) as bigint) AS ${name}`).join(', ');
const SUMS = `SELECT provider, model, ${TOTALS} FROM llm_usage_hourly WHERE hour >= ? AND hour < ? GROUP BY provider, model`;
const SUMS_BY_DAY = `SELECT provider, model, ${TOTALS}, substr(hour, 1, 10) AS day
  FROM llm_usage_hourly WHERE hour >= ? AND hour < ? GROUP BY provider, model, substr(hour, 1, 10)`;

export function createSqliteUsageStore(db: DatabaseHandle): UsageStore {
  return {
    async sums(since, until, byDay) {
      const { rows } = await db.executeQuery<SumRow>(
        CompiledQuery.raw(byDay ? SUMS_BY_DAY : SUMS, [hourOf(since), until]) as CompiledQuery<SumRow>,
      );
      return rows.map(usageSumOf);
    },
  };
}
