import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { DIALECTS, type Database } from '../db/database.js';
import type { HttpApp } from '../http/types.js';
import { METRIC_PREFIX } from './metrics.js';

// The database as the app sees it: how long its transactions take; on PostgreSQL how busy the pool is;
// on SQLite, which has no pool (writers queue for the group commit instead), how many transactions share
// each commit, and the WAL: its size and bound, checkpoints and the writers' holds (sqlite-checkpointer.ts).

const TRANSACTION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Up to MAX_BATCH (256) in group-commit.ts. */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Up to the hold's bound (2 s) in sqlite-checkpointer.ts. */
const HOLD_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2];

export function registerDatabaseMetrics(app: HttpApp, registry: Registry, database: Database): void {
  const registers = [registry];
  const transactions = new Histogram({
    name: `${METRIC_PREFIX}db_transaction_duration_seconds`,
    help: 'Transactions through the runner, by outcome: from the call until COMMIT (or ROLLBACK) returned',
    labelNames: ['outcome'],
    buckets: TRANSACTION_BUCKETS,
    registers,
  });
  const batches =
    database.dialect === DIALECTS.sqlite
      ? new Histogram({
          name: `${METRIC_PREFIX}db_group_commit_batch_size`,
          help: 'SQLite: transactions that shared one COMMIT (group commit)',
          buckets: BATCH_BUCKETS,
          registers,
        })
      : null;
  const wal = database.sqliteStatus()?.wal ? registerWalMetrics(registers, database) : null;
  const stop = database.observe({
    transaction: (seconds, outcome) => transactions.observe({ outcome }, seconds),
    batch: (size) => batches?.observe(size),
    checkpoint: (kind, outcome) => wal?.checkpoints.inc({ kind, outcome }),
    writesHeld: (seconds) => wal?.holds.observe(seconds),
  });
  app.addHook('onClose', async () => stop());

  const pool = database.pool;
  if (!pool) return;
  // Read from the pool's own counters when scraped: nothing to keep up to date meanwhile.
  new Gauge({
    name: `${METRIC_PREFIX}db_pool_connections`,
    help: 'PostgreSQL pool: connections open, by state (idle or in use)',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}db_pool_max_connections`,
    help: 'PostgreSQL pool: the most connections it opens (DATABASE_POOL_SIZE)',
    registers,
    collect() {
      this.set(pool.options.max ?? 10);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}db_pool_waiting_clients`,
    help: 'PostgreSQL pool: queries waiting for a connection',
    registers,
    collect() {
      this.set(pool.waitingCount);
    },
  });
}

function registerWalMetrics(registers: Registry[], database: Database) {
  const status = () => database.sqliteStatus()?.wal ?? null;
  new Gauge({
    name: `${METRIC_PREFIX}db_sqlite_wal_bytes`,
    help: 'SQLite: the size of the write-ahead log file',
    registers,
    collect() {
      this.set(status()?.bytes ?? 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}db_sqlite_wal_bound_bytes`,
    help: 'SQLite: the log size past which writers pause for a RESTART checkpoint (SQLITE_WAL_MAX_MB); 0 = no bound',
    registers,
    collect() {
      this.set(status()?.boundBytes ?? 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}db_sqlite_checkpoint_pages_left`,
    help: 'SQLite: pages of the log the last checkpoint did not copy back into the database',
    registers,
    collect() {
      this.set(status()?.pagesLeft ?? 0);
    },
  });
  const checkpoints = new Counter({
    name: `${METRIC_PREFIX}db_sqlite_checkpoints_total`,
    help: 'SQLite: checkpoints by kind (passive, restart) and outcome (done, partial, busy, failed)',
    labelNames: ['kind', 'outcome'],
    registers,
  });
  const holds = new Histogram({
    name: `${METRIC_PREFIX}db_sqlite_write_hold_seconds`,
    help: 'SQLite: how long writers waited while a RESTART checkpoint started the log over',
    buckets: HOLD_BUCKETS,
    registers,
  });
  return { checkpoints, holds };
}
