// `npm run bench:usage [-- --db sqlite|postgres --calls 1000000 --seconds 5]`: usage records written on one (hour,
// model) through the sharded rollup against a single row, and GET /classify/usage's reader over a year of
// hourly rows against the same seven days summed from per-call rows.

import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDedupeStore } from '../../src/classify/dedupe/store/index.js';
import type { UsageEvent } from '../../src/classify/usage/records.js';
import { createUsageReader } from '../../src/classify/usage/report.js';
import { createUsageStore } from '../../src/classify/usage/store/index.js';
import { hourOf } from '../../src/classify/usage/store/port.js';
import { DEFAULT_PRICES } from '../../src/shared/config/config.js';
import { type Database, openDatabase } from '../../src/shared/db/database.js';
import { createLogger } from '../../src/shared/observability/logger.js';
import { freshDatabase, parseDbKind, postgresAdminUrl } from '../lib/databases.js';
import { sampleWaits } from '../lib/pg-waits.js';
import { runMain } from '../lib/run-main.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    calls: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
  },
});
const kind = parseDbKind(values.db);
const CALLS = Number(values.calls);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const HOUR_MS = 60 * 60 * 1000;

function print(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'usage', db: kind, ...line })}\n`);
}

const event = (at: string): UsageEvent => ({
  kind: 'call',
  at,
  call: {
    provider: 'openai',
    model: 'gpt-4.1-mini',
    input_tokens: 900,
    output_tokens: 150,
    latency_ms: 400,
    attempts: 1,
    result: 'ok',
  },
});

/** Runs `write` from CONCURRENCY loops for SECONDS; returns writes a second. */
async function writeRate(write: () => Promise<unknown>): Promise<number> {
  const until = Date.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        await write();
        done += 1;
      }
    }),
  );
  return Math.round(done / SECONDS);
}

async function timed<T>(run: () => Promise<T>, repeat = 5): Promise<{ ms: number; value: T }> {
  let value = await run();
  const started = performance.now();
  for (let i = 0; i < repeat; i += 1) value = await run();
  return { ms: Math.round(((performance.now() - started) / repeat) * 10) / 10, value };
}

async function main(): Promise<void> {
  const target = await freshDatabase(kind);
  const database: Database = await openDatabase(
    { url: target.url, poolSize: 10, statementTimeoutMs: 60_000 },
    { logger: createLogger('silent') },
  );
  try {
    const store = createDedupeStore(database);
    const db = database.kysely;

    // Write path: every writer on the same hour and model, the worst case for a rollup.
    // Alternated, so a neighbour's load on the machine falls on both alike.
    const now = new Date().toISOString();
    const hour = hourOf(now);
    const singleRow = () =>
      sql`WITH c AS (INSERT INTO llm_calls (at, provider, model, result, attempts, input_tokens, output_tokens, latency_ms)
            VALUES (${now}, 'openai', 'single-row', 'ok', 1, 900, 150, 400) RETURNING id)
          INSERT INTO llm_usage_hourly (hour, provider, model, shard, calls, input_tokens, output_tokens)
          VALUES (${hour}, 'openai', 'single-row', 0, 1, 900, 150)
          ON CONFLICT (hour, provider, model, shard) DO UPDATE SET calls = llm_usage_hourly.calls + 1,
            input_tokens = llm_usage_hourly.input_tokens + 900, output_tokens = llm_usage_hourly.output_tokens + 150`.execute(
        db,
      );
    /** Writes a second, and (PostgreSQL) the connections waiting on a row lock, on average. */
    const measure = async (write: () => Promise<unknown>) => {
      if (kind !== 'postgres') return { writes_per_s: await writeRate(write) };
      const sampler = await sampleWaits(postgresAdminUrl(), target.schema!);
      const writesPerS = await sampler.during(writeRate(write));
      const waits = await sampler.stop();
      const sum = (match: (key: string) => boolean) =>
        Math.round(Object.entries(waits).reduce((total, [key, n]) => total + (match(key) ? n : 0), 0) * 100) / 100;
      return {
        writes_per_s: writesPerS,
        waiting_on_row_locks: sum((key) => key.includes('Lock:transactionid') || key.includes('Lock:tuple')),
        waiting_on_wal: sum((key) => key.includes('WAL')),
      };
    };
    for (let round = 0; round < 2; round += 1) {
      const rollup = kind === 'postgres' ? 'sharded by backend pid' : 'one row (one writer)';
      print({
        phase: 'write',
        round,
        rollup,
        concurrency: CONCURRENCY,
        ...(await measure(() => store.recordUsage(event(now)))),
      });
      if (kind === 'postgres')
        print({
          phase: 'write',
          round,
          rollup: 'one row (for comparison)',
          concurrency: CONCURRENCY,
          ...(await measure(singleRow)),
        });
    }

    // Read path: a year of hours, two models, every shard present (the most rows the rollup can hold).
    await db.deleteFrom('llm_usage_hourly').execute();
    await db.deleteFrom('llm_calls').execute();
    const shardCount = kind === 'postgres' ? 16 : 1;
    const start = Date.now() - 365 * 24 * HOUR_MS;
    const hours = Array.from({ length: 365 * 24 }, (_, i) => hourOf(new Date(start + i * HOUR_MS).toISOString()));
    const hourRows = hours.flatMap((hour) =>
      ['gpt-4.1-mini', 'claude-haiku-4-5'].flatMap((model) =>
        Array.from({ length: shardCount }, (_, shard) => ({
          hour,
          provider: 'openai',
          model,
          shard,
          calls: 7,
          input_tokens: 6_300,
          output_tokens: 1_050,
          duplicates_served: 2,
          fallbacks: 0,
        })),
      ),
    );
    for (let i = 0; i < hourRows.length; i += 2_000)
      await db
        .insertInto('llm_usage_hourly')
        .values(hourRows.slice(i, i + 2_000))
        .execute();
    // 1M calls over the last seven days, for the per-call comparison (2,000 a statement: SQLite caps the variables).
    const weekStart = Date.now() - 7 * 24 * HOUR_MS;
    for (let i = 0; i < CALLS; i += 2_000) {
      const rows = Array.from({ length: Math.min(2_000, CALLS - i) }, (_, j) => ({
        at: new Date(weekStart + ((i + j) / CALLS) * 7 * 24 * HOUR_MS).toISOString(),
        provider: 'openai',
        model: (i + j) % 2 === 0 ? 'gpt-4.1-mini' : 'claude-haiku-4-5',
        result: 'ok' as const,
        attempts: 1,
        input_tokens: 900,
        output_tokens: 150,
        latency_ms: 400,
      }));
      await db.insertInto('llm_calls').values(rows).execute();
    }
    if (kind === 'postgres') await sql`ANALYZE`.execute(db);

    const reader = createUsageReader(createUsageStore(database), DEFAULT_PRICES);
    const week = await timed(() => reader.report({ group_by: 'day' }));
    print({
      phase: 'read',
      query: '7 days by day (rollup)',
      rollup_rows: hourRows.length,
      ms: week.ms,
      rows: week.value.rows.length,
    });
    const month = await timed(() =>
      reader.report({ group_by: 'model', since: new Date(Date.now() - 30 * 24 * HOUR_MS).toISOString() }),
    );
    print({ phase: 'read', query: '30 days by model (rollup)', ms: month.ms });
    const year = await timed(() => reader.report({ group_by: 'model', since: new Date(start).toISOString() }));
    print({ phase: 'read', query: '365 days by model (rollup)', ms: year.ms });
    const day = kind === 'postgres' ? sql`to_char(at at time zone 'UTC', 'YYYY-MM-DD')` : sql`substr(at, 1, 10)`;
    const perCall = await timed(
      () =>
        sql`SELECT ${day} AS day, model, count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
            FROM llm_calls WHERE at >= ${new Date(weekStart).toISOString()} GROUP BY 1, 2`.execute(db),
      2,
    );
    print({ phase: 'read', query: '7 days by day from per-call rows (for comparison)', calls: CALLS, ms: perCall.ms });
  } finally {
    await database.close();
  }
}

runMain(main);
