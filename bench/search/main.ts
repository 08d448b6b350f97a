import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Pool } from 'undici';
import { type BenchDbKind, freshDatabase, keepAll, parseDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { startWork } from '../lib/servers.js';

// `npm run bench:search [-- --db sqlite|postgres --items 20000 --comments 3 --runs 20 --keep]`: GET
// /search's median and p99 per kind of query on a desk seeded through SQL in bulk (the triggers
// index it as the store's writes would), the index's size per item, and POST /work's
// throughput with the index and with its triggers dropped.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    items: { type: 'string', default: '20000' },
    comments: { type: 'string', default: '3' },
    runs: { type: 'string', default: '20' },
    submits: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '8' },
    keep: { type: 'boolean', default: false },
  },
});
const kind: BenchDbKind = parseDbKind(args.db);
const ITEMS = Number(args.items);
const COMMENTS = Number(args.comments);
const RUNS = Number(args.runs);
const SUBMITS = Number(args.submits);
const CONNECTIONS = Number(args.connections);

const WORDS = [
  'report',
  'budget',
  'meeting',
  'laptop',
  'travel',
  'printer',
  'toner',
  'weekly',
  'review',
  'plan',
  'deadline',
  'onboarding',
  'checklist',
  'invoice',
  'customer',
  'server',
  'backup',
  'contract',
  'renewal',
  'badge',
];

/** Twenty queries a desk sees, by kind. */
const QUERIES: { kind: string; q: string }[] = [
  { kind: 'rare_word', q: 'xylograph' },
  { kind: 'rare_word', q: '12345' },
  { kind: 'rare_word', q: '"ref 777"' },
  { kind: 'common_word_filter', q: 'report status:blocked' },
  { kind: 'common_word_filter', q: 'budget priority:1' },
  { kind: 'common_word_filter', q: 'meeting type:billing' },
  { kind: 'common_word_filter', q: 'laptop is:final' },
  { kind: 'common_word_filter', q: 'travel is:open priority:2' },
  { kind: 'phrase', q: '"weekly report"' },
  { kind: 'phrase', q: '"budget review"' },
  { kind: 'phrase', q: '"travel plan"' },
  { kind: 'needs_me', q: 'is:needs-me' },
  { kind: 'needs_me', q: 'report is:needs-me' },
  { kind: 'needs_me', q: 'budget is:needs-me' },
  { kind: 'prefix', q: 'budg*' },
  { kind: 'prefix', q: 'onboard*' },
  { kind: 'prefix', q: 'lapt* type:ops' },
  { kind: 'words', q: 'printer toner' },
  { kind: 'words', q: 'deadline -travel' },
  { kind: 'words', q: 'onboarding checklist' },
];

const word = (n: string, k: number) =>
  kind === 'postgres'
    ? `(ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}])[1 + ((${n}) * ${k}) % ${WORDS.length}]`
    : `json_extract('${JSON.stringify(WORDS)}', '$[' || (((${n}) * ${k}) % ${WORDS.length}) || ']')`;

function seedStatements(): string[] {
  const description = `${word('n', 7)} || ' ' || ${word('n', 11)} || ' ' || ${word('n', 13)} || ' ' || ${word('n', 17)}
    || ' ref ' || n || CASE WHEN n % 100000 = 7 THEN ' xylograph' ELSE '' END`;
  const status = `CASE WHEN n % 10 = 0 THEN 'blocked' WHEN n % 7 = 0 THEN 'completed' ELSE 'queued' END`;
  if (kind === 'postgres') {
    return [
      `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
       SELECT gen_random_uuid(), (ARRAY['ops','billing','support'])[1 + n % 3], ${description}, 1 + n % 5, ${status},
         'bench', timestamptz '2026-11-01' + n * interval '1 second', timestamptz '2026-11-01'
       FROM generate_series(1, ${ITEMS}) AS n`,
      `INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
       SELECT gen_random_uuid(), w.id, 'bench', 'admin', 'note', ${word('c + length(w.description)', 19)} || ' ' ||
         ${word('c + length(w.description)', 23)} || ' noted', '[]', w.created_at
       FROM work_items w CROSS JOIN generate_series(1, ${COMMENTS}) AS c`,
      `INSERT INTO work_questions (id, work_item_id, kind, asked_by, asked_role, question, status, asked_at, blocked_item, to_people)
       SELECT gen_random_uuid(), w.id, 'question', 'bench', 'agent', 'Which one?', 'open', w.created_at, 0, '["mia"]'
       FROM work_items w WHERE w.description LIKE '%ref %00'`,
    ];
  }
  const uuid = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' ||
    substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;
  return [
    `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${ITEMS})
     INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at)
     SELECT ${uuid}, json_extract('["ops","billing","support"]', '$[' || (n % 3) || ']'), ${description}, 1 + n % 5,
       ${status}, 'bench', strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-01', '+' || n || ' seconds'), '2026-11-01T00:00:00.000Z'
     FROM s`,
    `WITH RECURSIVE s(c) AS (SELECT 1 UNION ALL SELECT c + 1 FROM s WHERE c < ${COMMENTS})
     INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
     SELECT ${uuid}, w.id, 'bench', 'admin', 'note', ${word('c + length(w.description)', 19)} || ' ' ||
       ${word('c + length(w.description)', 23)} || ' noted', '[]', w.created_at
     FROM work_items w CROSS JOIN s`,
    `INSERT INTO work_questions (id, work_item_id, kind, asked_by, asked_role, question, status, asked_at, blocked_item, to_people)
     SELECT ${uuid}, w.id, 'question', 'bench', 'agent', 'Which one?', 'open', w.created_at, 0, '["mia"]'
     FROM work_items w WHERE w.description LIKE '%ref %00'`,
  ];
}

const DROP_TRIGGERS = {
  sqlite: ['search_item_insert', 'search_item_update', 'search_item_delete', 'search_recent_item_update'].map(
    (t) => `DROP TRIGGER ${t}`,
  ),
  postgres: ['search_item_insert', 'search_item_update'].map((t) => `DROP TRIGGER ${t} ON work_items`),
};

/** Runs statements on the bench database with its own driver; answers the first row of the last. */
async function runSql(url: string, path: string | undefined, statements: string[]): Promise<Record<string, unknown>> {
  if (kind === 'sqlite') {
    const db = new BetterSqlite3(path as string);
    try {
      db.pragma('busy_timeout = 60000');
      let last: Record<string, unknown> = {};
      for (const statement of statements) {
        const prepared = db.prepare(statement);
        last = prepared.reader ? ((prepared.get() as Record<string, unknown>) ?? {}) : (prepared.run(), {});
      }
      return last;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url, statement_timeout: 0 });
  await client.connect();
  try {
    let last: Record<string, unknown> = {};
    for (const statement of statements) last = (await client.query(statement)).rows[0] ?? {};
    return last;
  } finally {
    await client.end();
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const quantile = (sorted: Float64Array, fraction: number) =>
  sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;

function client(url: string, user: string) {
  const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 });
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> => {
    const answer = await pool.request({
      method,
      path,
      headers: { 'x-user': user, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 400)
      throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as unknown;
  };
  return { call, close: () => pool.close() };
}

/** POST /work as fast as CONNECTIONS callers go, on a fresh database; items per second. */
async function submitRate(dropIndex: boolean): Promise<number> {
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, CONNECTIONS);
  const { call, close } = client(server.url, 'bench');
  try {
    if (dropIndex) await runSql(database.url, database.path, DROP_TRIGGERS[kind]);
    const submit = (n: number) =>
      call('POST', '/work', { type: 'ops', description: `Prepare the weekly report ${n} for the budget review` });
    for (let n = 0; n < Math.ceil(SUBMITS / 10); n += 1) await submit(n);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < SUBMITS) await submit(next++);
      }),
    );
    return Math.round(SUBMITS / ((performance.now() - started) / 1000));
  } finally {
    await close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, CONNECTIONS);
  const { call, close } = client(server.url, 'mia');
  try {
    const seeding = performance.now();
    await runSql(database.url, database.path, [...seedStatements(), 'ANALYZE']);
    const seed_s = Math.round((performance.now() - seeding) / 100) / 10;
    if (args.keep) process.stderr.write(`seeded in ${seed_s} s, kept at ${database.url}\n`);
    const size = await runSql(
      database.url,
      database.path,
      kind === 'postgres'
        ? ["SELECT pg_total_relation_size('work_search') AS bytes"]
        : [
            "SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'search_%' OR name LIKE 'sqlite_autoindex_search_docs%'",
          ],
    );
    const byKind = new Map<string, number[]>();
    for (const { kind: queryKind, q } of QUERIES) {
      const path = `/search?${new URLSearchParams({ q, limit: '25' })}`;
      await call('GET', path);
      for (let run = 0; run < RUNS; run += 1) {
        const at = performance.now();
        await call('GET', path);
        byKind.set(queryKind, [...(byKind.get(queryKind) ?? []), performance.now() - at]);
      }
    }
    for (const [queryKind, times] of byKind) {
      const sorted = Float64Array.from(times).sort();
      process.stdout.write(
        `${JSON.stringify({
          bench: 'search',
          db: kind,
          items: ITEMS,
          comments_per_item: COMMENTS,
          query: queryKind,
          runs: times.length,
          median_ms: round(quantile(sorted, 0.5)),
          p99_ms: round(quantile(sorted, 0.99)),
        })}\n`,
      );
    }
    const withIndex = await submitRate(false);
    const withoutIndex = await submitRate(true);
    process.stdout.write(
      `${JSON.stringify({
        bench: 'search',
        db: kind,
        items: ITEMS,
        seed_s,
        index_bytes_per_item: Math.round(Number(size.bytes) / ITEMS),
        submits: SUBMITS,
        connections: CONNECTIONS,
        submits_per_s_with_index: withIndex,
        submits_per_s_without_index: withoutIndex,
        submit_ratio: Math.round((withIndex / withoutIndex) * 100) / 100,
      })}\n`,
    );
  } finally {
    await close();
    await server.stop();
  }
}

runMain(async () => {
  await main();
  if (args.keep) keepAll();
});
