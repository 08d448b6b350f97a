import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// Fresh, empty databases for one benchmark run: a new SQLite file in a temporary folder, or a
// new PostgreSQL schema (the URL sets search_path and application_name to it). All are removed
// by `dropAll`, which the run calls on the way out, also after a failure.

export const BENCH_DB_KINDS = ['sqlite', 'postgres'] as const;
export type BenchDbKind = (typeof BENCH_DB_KINDS)[number];

/** The store named by `--db`; anything else stops the run with the choices. */
export function parseDbKind(value: string): BenchDbKind {
  if ((BENCH_DB_KINDS as readonly string[]).includes(value)) return value as BenchDbKind;
  process.stderr.write(`--db must be one of ${BENCH_DB_KINDS.join(', ')}\n`);
  process.exit(2);
}

export interface BenchDatabase {
  kind: BenchDbKind;
  url: string;
  /** SQLite: the file. */
  path?: string;
  /** PostgreSQL: the schema, also the application_name of every connection to it. */
  schema?: string;
}

export function postgresAdminUrl(): string {
  return process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

const cleanups: (() => Promise<void>)[] = [];

export async function freshDatabase(kind: BenchDbKind): Promise<BenchDatabase> {
  if (kind === 'sqlite') {
    const folder = mkdtempSync(join(tmpdir(), 'agentdesk-bench-'));
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    const path = join(folder, 'bench.db');
    return { kind, url: `sqlite:${path}`, path };
  }
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  cleanups.push(async () => {
    const cleaner = new pg.Client({ connectionString: postgresAdminUrl() });
    await cleaner.connect();
    try {
      await cleaner.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await cleaner.end();
    }
  });
  const url = new URL(postgresAdminUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  url.searchParams.set('application_name', schema);
  return { kind, url: url.toString(), schema };
}

/**
 * ANALYZE of every table in `schema`: what autovacuum does to any table within a minute of a
 * bulk insert. Each system's drain starts from planner statistics, not from a fresh table's
 * guesses, which no desk that has run for a minute has (on a never-analyzed table PostgreSQL
 * guesses a handful of rows and may sort the whole queue for every claim). Every system of a
 * queue run gets it, between its adds and its drain.
 */
export async function analyzeSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = $1",
      [schema],
    );
    for (const { name } of rows) await client.query(`ANALYZE ${name}`);
  } finally {
    await client.end();
  }
}

export async function dropAll(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup().catch((error: unknown) => process.stderr.write(`cleanup failed: ${String(error)}\n`));
  }
}

/** Leaves every database made so far in place after the run, for a profile of its statements. */
export function keepAll(): void {
  cleanups.splice(0);
}
