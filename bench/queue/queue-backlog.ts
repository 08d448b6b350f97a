import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { request } from 'undici';
import { type BenchDbKind, analyzeSchema, freshDatabase, postgresAdminUrl } from '../lib/databases.js';
import { round } from '../lib/queue-phase.js';
import { startWork } from '../lib/servers.js';

// The backlog case of bench:queue: claims filtered by type behind an older backlog of another type, seeded straight
// into the table; the mean time per claim at `large` queued against `small` (target at most 2×: the claim must not
// walk the queue checking the type row by row).

export interface BacklogOptions {
  small: number;
  large: number;
  claims: number;
}

const WANTED = 'code_review';

export async function benchBacklog(
  kind: BenchDbKind,
  { small, large, claims }: BacklogOptions,
  emit: (line: Record<string, unknown>) => void,
): Promise<void> {
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, 4);
  const seed = kind === 'sqlite' ? sqliteSeeder(database.path as string) : await postgresSeeder(database.url);
  try {
    const perClaim: Record<number, number> = {};
    let queued = 0;
    let wanted = 0;
    for (const backlog of [small, large]) {
      // The backlog grows by the difference; the wanted items come after all of it.
      await seed(backlog - queued, claims * 2, wanted);
      queued = backlog;
      wanted += claims * 2;
      if (database.schema) await analyzeSchema(postgresAdminUrl(), database.schema);
      await claimSome(server.url, 20); // warm-up
      const started = performance.now();
      await claimSome(server.url, claims);
      perClaim[backlog] = (performance.now() - started) / claims;
      emit({
        metric: 'backlog_claim_ms',
        system: 'agentdesk',
        db: kind,
        queued: backlog,
        op: `POST /work/claim {"types":["${WANTED}"]}`,
        claims,
        ms_per_claim: round(perClaim[backlog]!, 3),
      });
    }
    const ratio = round(perClaim[large]! / perClaim[small]!);
    emit({
      metric: 'backlog_ratio',
      db: kind,
      what: `claim by type at ${large} queued over ${small} queued`,
      ratio,
      target: '<= 2',
      met: ratio <= 2,
    });
  } finally {
    await seed.close();
    await server.stop();
  }
}

async function claimSome(url: string, count: number): Promise<void> {
  const body = JSON.stringify({ agent: 'backlog-agent', types: [WANTED], lease_s: 600 });
  for (let i = 0; i < count; i += 1) {
    const { statusCode, body: answer } = await request(`${url}/work/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await answer.text();
    if (statusCode !== 200) throw new Error(`POST /work/claim answered ${statusCode}: nothing left to claim?`);
  }
}

type Seeder = ((backlog: number, wanted: number, wantedBefore: number) => Promise<void>) & { close(): Promise<void> };

// Backlog items are created in October, older than every wanted item (November): the head of
// the queue. Row n of each kind is a pure function of n, so a second call extends the first.
const BACKLOG_START = '2026-10-01T00:00:00.000Z';
const WANTED_START = '2026-11-01T00:00:00.000Z';

function sqliteSeeder(path: string): Seeder {
  const db = new BetterSqlite3(path, { timeout: 10_000 });
  let backlogSoFar = 0;
  const insert = (type: string, start: string, from: number, count: number) =>
    db.exec(`WITH RECURSIVE n(i) AS (SELECT ${from + 1} UNION ALL SELECT i + 1 FROM n WHERE i < ${from + count})
      INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at, version, attempts, max_attempts, retry_delay_s)
      SELECT lower(printf('%08x-0000-4000-8000-%012x', ${type === WANTED ? 1 : 2}, i)), '${type}', 'item ' || i, 3, 'queued', 'bench',
        strftime('%Y-%m-%dT%H:%M:%fZ', '${start}', '+' || i || ' seconds'), '${start}', 1, 0, 3, 30 FROM n`);
  const seeder = async (backlog: number, wanted: number, wantedBefore: number) => {
    if (backlog > 0) insert('backlog', BACKLOG_START, backlogSoFar, backlog);
    backlogSoFar += backlog;
    insert(WANTED, WANTED_START, wantedBefore, wanted);
    db.exec('ANALYZE');
  };
  return Object.assign(seeder, { close: async () => void db.close() });
}

async function postgresSeeder(url: string): Promise<Seeder> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let backlogSoFar = 0;
  const insert = (type: string, start: string, from: number, count: number) =>
    client.query(
      `INSERT INTO work_items (id, type, description, priority, status, created_by, created_at, updated_at, version, attempts, max_attempts, retry_delay_s)
       SELECT gen_random_uuid(), $1, 'item ' || n, 3, 'queued', 'bench', $2::timestamptz + n * interval '1 second', $2::timestamptz, 1, 0, 3, 30
       FROM generate_series($3::int + 1, $3::int + $4::int) AS n`,
      [type, start, from, count],
    );
  const seeder = async (backlog: number, wanted: number, wantedBefore: number) => {
    if (backlog > 0) await insert('backlog', BACKLOG_START, backlogSoFar, backlog);
    backlogSoFar += backlog;
    await insert(WANTED, WANTED_START, wantedBefore, wanted);
  };
  return Object.assign(seeder, { close: () => client.end() });
}
