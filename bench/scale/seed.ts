import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { BenchDatabase } from '../lib/databases.js';

// A desk that has taken a million items a year, written in bulk SQL with every trigger in place (the
// stats rollups and the search index see each row as the store's writes would). Row n is a pure
// function of n, so the ids of items, parents and projects are known without a read.

export const TYPES = 50;
export const AGENTS = 200;
export const PROJECTS = 50;
/** A million items a year, at every size: the dashboard's week holds the same traffic at any size. */
const ITEMS_PER_DAY = 1_000_000 / 365;
const EVENTS_MS = 30 * 86_400_000;

export interface Mix {
  items: number;
  queued: number;
  inProgress: number;
  /** Every item's created_at lies in [startMs, startMs + spanMs), oldest first. */
  startMs: number;
  spanMs: number;
  nowMs: number;
}

/** The issue's mix at a million items, the queue and the work in hand scaled down with the size. */
export function mixFor(items: number, nowMs = Date.now()): Mix {
  const spanMs = Math.round((items / ITEMS_PER_DAY) * 86_400_000);
  return {
    items,
    queued: Math.max(1, Math.round((20_000 * items) / 1_000_000)),
    inProgress: Math.max(1, Math.round((500 * items) / 1_000_000)),
    startMs: nowMs - spanMs - 60_000,
    spanMs,
    nowMs,
  };
}

const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');
/** The id of item n, as the SQL below writes it: its hash first, so the primary key fills at random. */
export const itemId = (n: number) => `${hex(hashOf(n), 8)}-0000-4000-8000-${hex(n, 12)}`;
export const projectId = (k: number) => `ffffffff-0000-4000-8000-${hex(k, 12)}`;
export const typeName = (k: number) => `type-${String(k).padStart(2, '0')}`;
export const agentName = (k: number) => `agent-${String(k).padStart(3, '0')}`;
export function hashOf(n: number): number {
  return Number((BigInt(n) * 2654435761n) % 4294967296n);
}

interface Dialect {
  /** A WITH clause naming `base(n, h)` over n in [from, to). */
  series(from: number, to: number): string;
  hex(expr: string, width: number): string;
  pad(expr: string, width: number): string;
  uuid(expr: string): string;
  at(msExpr: string): string;
  json(pairs: [string, string][]): string;
}

const sqlite: Dialect = {
  series: (from, to) =>
    `WITH RECURSIVE s(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM s WHERE n < ${to - 1}),
     base AS (SELECT n, (n * 2654435761) % 4294967296 AS h FROM s)`,
  hex: (expr, width) => `printf('%0${width}x', ${expr})`,
  pad: (expr, width) => `printf('%0${width}d', ${expr})`,
  uuid: (expr) => expr,
  at: (ms) => `strftime('%Y-%m-%dT%H:%M:%fZ', (${ms}) / 1000.0, 'unixepoch')`,
  json: (pairs) => `json_object(${pairs.map(([key, value]) => `'${key}', ${value}`).join(', ')})`,
};

const postgres: Dialect = {
  series: (from, to) =>
    `WITH base AS (SELECT n::bigint AS n, (n::bigint * 2654435761) % 4294967296 AS h
       FROM generate_series(${from}, ${to - 1}) AS n)`,
  hex: (expr, width) => `lpad(to_hex(${expr}), ${width}, '0')`,
  pad: (expr, width) => `lpad((${expr})::text, ${width}, '0')`,
  uuid: (expr) => `(${expr})::uuid`,
  at: (ms) => `to_timestamp((${ms}) / 1000.0)`,
  json: (pairs) => `json_build_object(${pairs.map(([key, value]) => `'${key}', ${value}`).join(', ')})::text`,
};

/** The WITH clause of one batch: `shaped` holds each item's number, hash, status, agent and times (ms). */
function shaped(d: Dialect, mix: Mix, from: number, to: number): string {
  const { items, queued, inProgress } = mix;
  const status = `CASE WHEN n >= ${items - queued} THEN 'queued'
      WHEN n >= ${items - queued - inProgress} THEN 'in_progress'
      WHEN n >= ${items - queued - 2 * inProgress} THEN 'dispatched'
      WHEN (h / 65536) % 100 < 80 THEN 'completed' WHEN (h / 65536) % 100 < 85 THEN 'failed'
      WHEN (h / 65536) % 100 < 90 THEN 'cancelled' ELSE 'blocked' END`;
  const created = `${mix.startMs} + (n * ${mix.spanMs}) / ${items}`;
  return `${d.series(from, to)},
    staged AS (SELECT n, h, ${status} AS status, ${created} AS created_ms FROM base),
    shaped AS (
      SELECT n, h, status, created_ms,
        CASE WHEN status = 'queued' THEN created_ms ELSE created_ms + 1000 * (1 + h % 600) END AS updated_ms,
        status IN ('completed', 'failed', 'cancelled') AS final,
        CASE WHEN status = 'queued' OR (status = 'cancelled' AND h % 2 = 0) THEN NULL
          ELSE 'agent-' || ${d.pad(`(h / 4096) % ${AGENTS}`, 3)} END AS agent,
        ${d.uuid(`${d.hex('h', 8)} || '-0000-4000-8000-' || ${d.hex('n', 12)}`)} AS id
      FROM staged)`;
}

function itemStatements(d: Dialect, mix: Mix, from: number, to: number): string[] {
  const w = shaped(d, mix, from, to);
  const outcome = `CASE status WHEN 'completed' THEN 'success' WHEN 'failed' THEN 'failed' WHEN 'cancelled' THEN 'cancelled' END`;
  const parent = d.uuid(
    `${d.hex('((n - n % 100) * 2654435761) % 4294967296', 8)} || '-0000-4000-8000-' || ${d.hex('n - n % 100', 12)}`,
  );
  const items = `${w} INSERT INTO work_items (id, type, description, priority, status, assigned_agent, created_by,
      created_at, updated_at, completed_at, outcome, payload, project_id, version, attempts, lease_expires_at, lease_s,
      comment_count, parent_id)
    SELECT id, 'type-' || ${d.pad(`(h / 256) % ${TYPES}`, 2)},
      'Seeded item #' || n || ': follow up on the customer''s request about the ' ||
        CASE h % 4 WHEN 0 THEN 'invoice' WHEN 1 THEN 'laptop' WHEN 2 THEN 'contract renewal' ELSE 'weekly report' END,
      1 + (h / 1048576) % 5, status, agent, 'seed', ${d.at('created_ms')}, ${d.at('updated_ms')},
      CASE WHEN final THEN ${d.at('updated_ms')} END, ${outcome},
      CASE WHEN h % 3 = 0 THEN '{"ticket":' || n || ',"source":"seed"}' END,
      CASE WHEN (h / 1024) % 5 = 0 THEN NULL
        ELSE ${d.uuid(`'ffffffff-0000-4000-8000-' || ${d.hex(`(h / 8192) % ${PROJECTS}`, 12)}`)} END,
      CASE WHEN status = 'queued' THEN 1 ELSE 3 END, CASE WHEN agent IS NULL THEN 0 ELSE 1 END,
      CASE WHEN status = 'in_progress' THEN ${d.at(`${mix.nowMs + 86_400_000}`)} END,
      CASE WHEN status = 'in_progress' THEN 300 END, 1,
      CASE WHEN n % 100 BETWEEN 1 AND 5 AND n >= 100 THEN ${parent} END
    FROM shaped`;
  // Three history rows an item on average: created, claimed, its end (or its block), an edit in ten.
  const historyOf = (
    k: number,
    action: string,
    actor: string,
    role: string,
    ms: string,
    changes: string,
    when: string,
  ) =>
    `SELECT id, ${k} AS k, ${d.at(ms)} AS at, ${actor} AS actor, '${role}' AS role, ${action} AS action, ${changes} AS changes FROM shaped WHERE ${when}`;
  const history = `${w}, rows AS (
      ${historyOf(1, "'created'", "'seed'", 'admin', 'created_ms', `'{"status":{"from":null,"to":"queued"}}'`, '1 = 1')}
      UNION ALL ${historyOf(2, "'edited'", "'seed'", 'admin', 'created_ms + 500', `'{"priority":{"from":3,"to":2}}'`, 'n % 10 = 3')}
      UNION ALL ${historyOf(3, "'claimed'", 'agent', 'agent', 'created_ms + 1000', `'{"status":{"from":"queued","to":"in_progress"},"assigned_agent":{"from":null,"to":"' || agent || '"}}'`, 'agent IS NOT NULL')}
      UNION ALL ${historyOf(
        4,
        "CASE status WHEN 'completed' THEN 'complete' WHEN 'failed' THEN 'fail' WHEN 'cancelled' THEN 'cancel' ELSE 'block' END",
        "coalesce(agent, 'seed')",
        'agent',
        'updated_ms',
        `'{"status":{"from":"in_progress","to":"' || status || '"}}'`,
        "final OR status = 'blocked'",
      )})
    INSERT INTO work_history (work_item_id, at, actor, role, action, changes)
    SELECT id, at, actor, role, action, changes FROM rows ORDER BY id, k`;
  const comments = `${w} INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
    SELECT ${d.uuid(`${d.hex('h', 8)} || '-0000-4000-9000-' || ${d.hex('n', 12)}`)}, id, coalesce(agent, 'seed'),
      CASE WHEN agent IS NULL THEN 'admin' ELSE 'agent' END, 'note',
      'Checked the account; the customer wants it by Friday (item ' || n || ')', '[]', ${d.at('updated_ms')}
    FROM shaped`;
  // Opened as a claim opens them, then closed as a completion closes them, so the agent rollups fire.
  const dispatchId = (expr: string) => d.uuid(`'00000000-0000-4000-a000-' || ${d.hex(expr, 12)}`);
  const dispatches = `${w} INSERT INTO dispatch_log (id, work_item_id, agent, dispatched_at)
    SELECT ${dispatchId('n')}, id, agent, ${d.at('created_ms + 1000')} FROM shaped WHERE agent IS NOT NULL`;
  const of = (column: string) => `(SELECT w.${column} FROM work_items w WHERE w.id = dispatch_log.work_item_id)`;
  const closing = `UPDATE dispatch_log SET completed_at = ${of('completed_at')},
      outcome = ${of('outcome')}, reason = ${of('status')}
    WHERE id BETWEEN ${dispatchId(String(from))} AND ${dispatchId(String(to - 1))} AND ${of('completed_at')} IS NOT NULL`;
  const questions = `${w} INSERT INTO work_questions (id, work_item_id, kind, agent, asked_by, asked_role, question,
      status, asked_at, blocked_item)
    SELECT ${d.uuid(`${d.hex('h', 8)} || '-0000-4000-b000-' || ${d.hex('n', 12)}`)}, id, 'question', agent, agent,
      'agent', 'Which account should the refund go to?', 'open', ${d.at('updated_ms')}, 1
    FROM shaped WHERE status = 'blocked' AND h % 10 = 0`;
  return [items, history, comments, dispatches, closing, questions];
}

function setupStatements(d: Dialect, mix: Mix): string[] {
  const projects = `${d.series(0, PROJECTS)} INSERT INTO projects (id, name, name_key, created_at)
    SELECT ${d.uuid(`'ffffffff-0000-4000-8000-' || ${d.hex('n', 12)}`)}, 'Project ' || n, 'project ' || n, ${d.at(String(mix.startMs))}
    FROM base`;
  return [projects];
}

/** The last thirty days of the event log: one event per history row, the item as it is now. */
function eventStatement(d: Dialect, mix: Mix): string {
  const data = d.json([
    ['id', 'w.id'],
    ['type', 'w.type'],
    ['description', 'w.description'],
    ['priority', 'w.priority'],
    ['status', 'w.status'],
    ['assigned_agent', 'w.assigned_agent'],
    ['created_by', 'w.created_by'],
    ['created_at', 'w.created_at'],
    ['updated_at', 'w.updated_at'],
    ['project_id', 'w.project_id'],
    ['version', 'w.version'],
  ]);
  return `INSERT INTO events (type, data, created_at)
    SELECT CASE h.action WHEN 'created' THEN 'work.created' ELSE 'work.updated' END, ${data}, h.at
    FROM work_history h JOIN work_items w ON w.id = h.work_item_id
    WHERE h.at >= ${d.at(String(mix.nowMs - EVENTS_MS))} ORDER BY h.at, h.id`;
}

const COMPACT = {
  sqlite: [
    `INSERT INTO work_stat_hourly (metric, hour, status, type, agent, bucket, n)
     SELECT metric, hour, status, type, agent, bucket, sum(n) FROM work_stat_deltas
     GROUP BY metric, hour, status, type, agent, bucket
     ON CONFLICT (metric, hour, status, type, agent, bucket) DO UPDATE SET n = n + excluded.n`,
    `INSERT INTO work_stat_current (status, type, n)
     SELECT status, type, sum(n) FROM work_stat_deltas WHERE metric = 'depth' GROUP BY status, type
     ON CONFLICT (status, type) DO UPDATE SET n = n + excluded.n`,
    'DELETE FROM work_stat_deltas',
  ],
  postgres: [
    `WITH moved AS (DELETE FROM work_stat_deltas RETURNING metric, hour, status, type, agent, bucket, n),
     rolled AS (INSERT INTO work_stat_hourly AS h (metric, hour, status, type, agent, bucket, n)
       SELECT metric, hour, status, type, agent, bucket, sum(n) FROM moved GROUP BY metric, hour, status, type, agent, bucket
       ON CONFLICT (metric, hour, status, type, agent, bucket) DO UPDATE SET n = h.n + EXCLUDED.n)
     INSERT INTO work_stat_current AS c (status, type, n)
     SELECT status, type, sum(n) FROM moved WHERE metric = 'depth' GROUP BY status, type
     ON CONFLICT (status, type) DO UPDATE SET n = c.n + EXCLUDED.n`,
  ],
};

const BATCH = 50_000;

/**
 * Seeds `mix` into a migrated database whose service is stopped. The deltas are folded as the
 * service's compactor folds them, and PostgreSQL's tables analyzed as autovacuum soon would.
 */
export async function seedDesk(database: BenchDatabase, mix: Mix, progress: (line: string) => void): Promise<void> {
  const batches: [number, number][] = [];
  for (let from = 0; from < mix.items; from += BATCH) batches.push([from, Math.min(mix.items, from + BATCH)]);
  if (database.kind === 'sqlite') {
    const db = new BetterSqlite3(database.path as string, { timeout: 60_000 });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = OFF');
      db.pragma('cache_size = -2097152');
      db.pragma('temp_store = MEMORY');
      const run = (statement: string) => db.prepare(statement).run();
      db.transaction(() => setupStatements(sqlite, mix).forEach(run))();
      for (const [from, to] of batches) {
        db.transaction(() => itemStatements(sqlite, mix, from, to).forEach(run))();
        progress(`seeded ${to} of ${mix.items}`);
      }
      db.transaction(() => [eventStatement(sqlite, mix), ...COMPACT.sqlite].forEach(run))();
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: database.url, statement_timeout: 0 });
  await client.connect();
  try {
    await client.query('SET synchronous_commit = off');
    for (const statement of setupStatements(postgres, mix)) await client.query(statement);
    for (const [from, to] of batches) {
      await client.query('BEGIN');
      for (const statement of itemStatements(postgres, mix, from, to)) await client.query(statement);
      await client.query('COMMIT');
      progress(`seeded ${to} of ${mix.items}`);
    }
    await client.query(eventStatement(postgres, mix));
    for (const statement of COMPACT.postgres) await client.query(statement);
    // Only this schema's tables: the database may hold other runs' schemas.
    const { rows } = await client.query<{ name: string }>(
      "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = current_schema()",
    );
    for (const { name } of rows) await client.query(`VACUUM ANALYZE ${name}`);
  } finally {
    await client.end();
  }
}

/** The database's size on disk: the SQLite file, or every relation of the PostgreSQL schema. */
export async function databaseBytes(database: BenchDatabase): Promise<number> {
  if (database.kind === 'sqlite') {
    const db = new BetterSqlite3(database.path as string, { readonly: true });
    try {
      const pages = db.pragma('page_count', { simple: true }) as number;
      return pages * (db.pragma('page_size', { simple: true }) as number);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>(
      `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c
       JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind IN ('r', 'm')`,
      [database.schema],
    );
    return Number(rows[0]?.bytes ?? 0);
  } finally {
    await client.end();
  }
}
