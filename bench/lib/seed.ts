import { randomUUID } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

// Bulk seeding for the listing benchmark, straight into the tables: row n is a pure function of n, written in
// TypeScript for SQLite and in SQL (generate_series) for PostgreSQL, both driven by the tables below.

const STATUS_SHARES = [
  ['queued', 10],
  ['dispatched', 8],
  ['in_progress', 12],
  ['blocked', 5],
  ['completed', 55],
  ['failed', 5],
  ['cancelled', 5],
] as const;
const TYPES = ['code_review', 'triage', 'email_reply', 'bug_fix', 'research', 'deploy', 'summarize', 'qa'] as const;
/** Index (hash % 20) to priority: mostly 3, a few urgent and a few low. */
const PRIORITIES = [1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 5] as const;
const AGENT_COUNT = 40;
const OUTCOMES = { completed: 'success', failed: 'failed', cancelled: 'cancelled' } as const;

export interface SeedPlan {
  /** Creation times run evenly from here (ms since the epoch) over `spanMs`, in row order. */
  startMs: number;
  spanMs: number;
  /** Rows the whole run will hold, so a first slice occupies the oldest part of the span. */
  plannedRows: number;
}

export function seedPlan(plannedRows: number, now = Date.now()): SeedPlan {
  const spanMs = 180 * 24 * 3_600_000;
  return { startMs: now - spanMs - 3_600_000, spanMs, plannedRows };
}

// Knuth's multiplicative hash, kept below 2^32 so PostgreSQL's bigint computes the same value.
const HASH_SQL = '((n::bigint * 2654435761) % 4294967296)';
function hash(n: number): number {
  return Number((BigInt(n) * 2654435761n) % 4294967296n);
}

function statusOf(h: number): (typeof STATUS_SHARES)[number][0] {
  let bucket = Math.floor(h / 65_536) % 100;
  for (const [status, share] of STATUS_SHARES) {
    if (bucket < share) return status;
    bucket -= share;
  }
  return 'completed';
}

function statusSql(): string {
  let bound = 0;
  const branches = STATUS_SHARES.map(
    ([status, share]) => `WHEN (h / 65536) % 100 < ${(bound += share)} THEN '${status}'`,
  );
  return `CASE ${branches.join(' ')} END`;
}

const pad = (value: number) => String(value).padStart(2, '0');

type Row = [
  string,
  string,
  string,
  number,
  string,
  string | null,
  string,
  string,
  string,
  string | null,
  string | null,
  null,
  string | null,
  null,
];
type DispatchRow = [string, string, string, string, string | null, string | null];

function rowOf(n: number, plan: SeedPlan): { row: Row; dispatch: DispatchRow | null } {
  const h = hash(n);
  const status = statusOf(h);
  const createdMs = plan.startMs + Math.floor((n * plan.spanMs) / plan.plannedRows);
  const created = new Date(createdMs).toISOString();
  const updated = new Date(createdMs + (h % 3_600) * 1_000).toISOString();
  const final = status in OUTCOMES;
  // Cancelled items: half were cancelled while queued (no agent), half after dispatch.
  const hasAgent = status !== 'queued' && !(status === 'cancelled' && h % 2 === 0);
  const agent = hasAgent ? `agent-${pad(Math.floor(h / 4_096) % AGENT_COUNT)}` : null;
  const outcome = final ? OUTCOMES[status as keyof typeof OUTCOMES] : null;
  const completed = final ? updated : null;
  const payload = h % 3 === 0 ? `{"ticket":${n},"source":"seed"}` : null;
  const id = randomUUID();
  const row: Row = [
    id,
    TYPES[Math.floor(h / 256) % TYPES.length] as string,
    `Seeded work item #${n}: follow up on the customer's request`,
    PRIORITIES[Math.floor(h / 1_048_576) % PRIORITIES.length] as number,
    status,
    agent,
    'seed',
    created,
    updated,
    completed,
    outcome,
    null,
    payload,
    null,
  ];
  // An item with an agent has one dispatch entry: open while held, closed with the item's end.
  const dispatch: DispatchRow | null = agent === null ? null : [randomUUID(), id, agent, created, completed, outcome];
  return { row, dispatch };
}

const ITEM_COLUMNS =
  'id, type, description, priority, status, assigned_agent, created_by, created_at, updated_at, completed_at, outcome, notes, payload, project_id';
const DISPATCH_COLUMNS = 'id, work_item_id, agent, dispatched_at, completed_at, outcome';

function placeholders(columns: number, rows: number): string {
  const one = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  return Array.from({ length: rows }, () => one).join(', ');
}

function secondaryIndexes(db: BetterSqlite3.Database): { name: string; sql: string }[] {
  return db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('work_items', 'dispatch_log')",
    )
    .all() as { name: string; sql: string }[];
}

/** Rows [from, to) into a SQLite file: multi-row prepared INSERTs, one transaction per batch. */
export function seedSqlite(path: string, from: number, to: number, plan: SeedPlan): void {
  const db = new BetterSqlite3(path, { timeout: 60_000 });
  try {
    // The seed is scaffolding, not data anyone was promised: no fsync per batch.
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1048576');
    db.pragma('temp_store = MEMORY');
    // Every dispatch entry is generated from the item inserted just before it.
    db.pragma('foreign_keys = OFF');
    const PER_STATEMENT = 200;
    const items = db.prepare(`INSERT INTO work_items (${ITEM_COLUMNS}) VALUES ${placeholders(14, PER_STATEMENT)}`);
    const dispatches = db.prepare(
      `INSERT INTO dispatch_log (${DISPATCH_COLUMNS}) VALUES ${placeholders(6, PER_STATEMENT)}`,
    );
    const oneItem = db.prepare(`INSERT INTO work_items (${ITEM_COLUMNS}) VALUES ${placeholders(14, 1)}`);
    const oneDispatch = db.prepare(`INSERT INTO dispatch_log (${DISPATCH_COLUMNS}) VALUES ${placeholders(6, 1)}`);

    const insertAll = (
      values: unknown[],
      columns: number,
      many: BetterSqlite3.Statement,
      one: BetterSqlite3.Statement,
    ) => {
      const chunk = columns * PER_STATEMENT;
      let at = 0;
      for (; at + chunk <= values.length; at += chunk) many.run(values.slice(at, at + chunk));
      for (; at < values.length; at += columns) one.run(values.slice(at, at + columns));
    };
    const batch = db.transaction((start: number, end: number) => {
      const itemValues: unknown[] = [];
      const dispatchValues: unknown[] = [];
      for (let n = start; n < end; n += 1) {
        const { row, dispatch } = rowOf(n, plan);
        itemValues.push(...row);
        if (dispatch) dispatchValues.push(...dispatch);
      }
      insertAll(itemValues, 14, items, oneItem);
      insertAll(dispatchValues, 6, dispatches, oneDispatch);
    });
    // A big load goes faster into bare tables, with each index built once at the end.
    const indexes = to - from >= 100_000 ? secondaryIndexes(db) : [];
    for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
    const BATCH = 50_000;
    for (let start = from; start < to; start += BATCH) batch(start, Math.min(to, start + BATCH));
    for (const index of indexes) db.exec(index.sql);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** Rows [from, to) into a PostgreSQL schema with generate_series, all computed by the server. */
export async function seedPostgres(url: string, from: number, to: number, plan: SeedPlan): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET synchronous_commit = off');
    await client.query(`SET maintenance_work_mem = '256MB'`);
    // As on SQLite: a big load goes into bare tables and each index is built once at the end.
    const { rows: indexes } =
      to - from >= 100_000
        ? await client.query<{ name: string; definition: string }>(
            `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
             WHERE schemaname = current_schema() AND tablename IN ('work_items', 'dispatch_log')
               AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
          )
        : { rows: [] };
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
    const types = `(ARRAY[${TYPES.map((type) => `'${type}'`).join(',')}])[1 + (h / 256) % ${TYPES.length}]`;
    const priorities = `(ARRAY[${PRIORITIES.join(',')}])[1 + (h / 1048576) % ${PRIORITIES.length}]`;
    const outcome = `CASE status WHEN 'completed' THEN 'success' WHEN 'failed' THEN 'failed' WHEN 'cancelled' THEN 'cancelled' END`;
    const BATCH = 250_000;
    for (let start = from; start < to; start += BATCH) {
      const end = Math.min(to, start + BATCH);
      await client.query(
        `WITH base AS (
           SELECT n, ${HASH_SQL} AS h,
                  timestamptz 'epoch' + ($3::bigint + (n::bigint * $4::bigint) / $5::bigint) * interval '1 millisecond' AS created
           FROM generate_series($1::int, $2::int - 1) AS n
         ), shaped AS (
           SELECT n, h, created, ${statusSql()} AS status,
                  created + (h % 3600) * interval '1 second' AS updated
           FROM base
         ), rows AS (
           SELECT gen_random_uuid() AS id, n, h, status, created, updated,
                  CASE WHEN status = 'queued' OR (status = 'cancelled' AND h % 2 = 0) THEN NULL
                       ELSE 'agent-' || lpad(((h / 4096) % ${AGENT_COUNT})::text, 2, '0') END AS agent,
                  ${outcome} AS outcome
           FROM shaped
         ), inserted AS (
           INSERT INTO work_items (${ITEM_COLUMNS})
           SELECT id, ${types}, 'Seeded work item #' || n || ': follow up on the customer''s request', ${priorities},
                  status, agent, 'seed', created, updated,
                  CASE WHEN outcome IS NULL THEN NULL ELSE updated END, outcome, NULL,
                  CASE WHEN h % 3 = 0 THEN '{"ticket":' || n || ',"source":"seed"}' END, NULL
           FROM rows
           RETURNING id, assigned_agent, created_at, completed_at, outcome
         )
         INSERT INTO dispatch_log (${DISPATCH_COLUMNS})
         SELECT gen_random_uuid(), id, assigned_agent, created_at, completed_at, outcome
         FROM inserted WHERE assigned_agent IS NOT NULL`,
        [start, end, plan.startMs, plan.spanMs, plan.plannedRows],
      );
    }
    for (const index of indexes) await client.query(index.definition);
    // What autovacuum does soon after a bulk load (the planner needs the new row counts), done
    // now so that it does not run, on a core of its own, in the middle of the measurements.
    await client.query('VACUUM ANALYZE work_items');
    await client.query('VACUUM ANALYZE dispatch_log');
  } finally {
    await client.end();
  }
}
