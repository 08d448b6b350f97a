// The dashboard's numbers on SQLite: the reads add the deltas not yet folded in, and the
// compaction runs in slices, each its own transaction.

import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import type { TransactionRunner } from '../../../shared/db/group-commit.js';
import { crossDialectStatsReads } from './cross-dialect.js';
import type { StatsStore } from './port.js';

/** SQLite runs a compaction on the event loop: in slices, so a backlog cannot hold it long. */
const SLICE = 20_000;

async function compactSlice(trx: DatabaseHandle): Promise<number> {
  const last = await sql<{ upto: number }>`SELECT max(id) AS upto FROM (
      SELECT rowid AS id FROM work_stat_deltas ORDER BY rowid LIMIT ${SLICE}
    )`.execute(trx);
  const upto = last.rows[0]?.upto;
  if (upto === null || upto === undefined) return 0;
  await sql`INSERT INTO work_stat_hourly (metric, hour, status, type, agent, bucket, n)
    SELECT metric, hour, status, type, agent, bucket, sum(n) FROM work_stat_deltas WHERE rowid <= ${upto}
    GROUP BY metric, hour, status, type, agent, bucket
    ON CONFLICT (metric, hour, status, type, agent, bucket) DO UPDATE SET n = n + excluded.n`.execute(trx);
  await sql`INSERT INTO work_stat_current (status, type, n)
    SELECT status, type, sum(n) FROM work_stat_deltas WHERE rowid <= ${upto} AND metric = 'depth'
    GROUP BY status, type
    ON CONFLICT (status, type) DO UPDATE SET n = n + excluded.n`.execute(trx);
  const deleted = await sql`DELETE FROM work_stat_deltas WHERE rowid <= ${upto}`.execute(trx);
  return Number(deleted.numAffectedRows ?? 0);
}

export function createSqliteStatsStore(db: DatabaseHandle, transaction: TransactionRunner): StatsStore {
  return {
    ...crossDialectStatsReads(db),

    async oldestQueued(types) {
      if (types.length === 0) return [];
      // Each type is one probe of the partial index work_items_queued_type_age.
      const { rows } = await sql<{ type: string; created_at: string | null }>`SELECT t.value AS type, (
          SELECT w.created_at FROM work_items w WHERE w.status = 'queued' AND w.type = t.value
          ORDER BY w.created_at LIMIT 1
        ) AS created_at FROM json_each(${JSON.stringify(types)}) AS t`.execute(db);
      return rows;
    },

    async oldestQueuedExcept(types) {
      // One query for the long tail, instead of one probe per type: it reads at most the queued
      // items (an index of them, whichever the planner takes), once per scrape.
      const { rows } = await sql<{ created_at: string }>`SELECT created_at FROM work_items
        WHERE status = 'queued' AND type NOT IN (SELECT value FROM json_each(${JSON.stringify(types)}))
        ORDER BY created_at LIMIT 1`.execute(db);
      return rows[0]?.created_at ?? null;
    },

    async compact() {
      let moved = 0;
      for (;;) {
        const slice = await transaction((trx) => compactSlice(trx));
        moved += slice;
        if (slice < SLICE) return moved;
      }
    },
  };
}
