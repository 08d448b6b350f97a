import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { DEFAULT_SQLITE_WAL_MAX_MB, type DatabaseConfig } from '../config/config.js';
import { type TransactionRunner, createGroupCommit } from './group-commit.js';
import { migratePostgres, migrateSqlite } from './migrate.js';
import type { DatabaseHandle, DatabaseSchema } from './schema.js';
import {
  type CheckpointKind,
  type CheckpointOutcome,
  type CheckpointerOptions,
  type WalStatus,
  startCheckpointer,
} from './sqlite-checkpointer.js';
import { DurableSqliteDialect, type StorageWatch } from './sqlite-driver.js';
import { OPEN_GATE } from './sqlite-write-gate.js';
import { NO_SYNC, createWalSync } from './wal-sync.js';

export const DIALECTS = { sqlite: 'sqlite', postgres: 'postgres' } as const;
export type Dialect = (typeof DIALECTS)[keyof typeof DIALECTS];

/**
 * A connection to the one database both services share, typed with every feature's tables
 * (schema.ts): the features declare them, the handle itself knows no feature.
 */
export interface Database {
  readonly dialect: Dialect;
  readonly kysely: DatabaseHandle;
  /**
   * Runs `work` in a transaction and resolves once it has committed. On SQLite concurrent
   * transactions share one commit (see group-commit.ts); on PostgreSQL each is its own.
   */
  transaction: TransactionRunner;
  /**
   * Resolves once everything committed before the call is on disk. On SQLite writes are flushed
   * after their COMMIT (group-commit.ts, wal-sync.ts); `transaction` and every write statement
   * outside it already wait for that (sqlite-driver.ts), so this is for code that writes some
   * other way. On PostgreSQL a commit is durable when it returns: resolves at once.
   */
  durable(): Promise<void>;
  /** PostgreSQL only: the pool; null on SQLite. */
  readonly pool: pg.Pool | null;
  /** Tells `observer` of every transaction (and SQLite batch) from now on; returns the function that stops it. */
  observe(observer: DatabaseObserver): () => void;
  /**
   * Calls `onNotify` for each NOTIFY on `channel`, from any instance, with its payload, on a
   * connection of its own that reconnects by itself; once (re)connected it calls `onNotify(null)`:
   * notifications may have been missed. On SQLite (one process) there is nothing to listen to.
   */
  listen(channel: string, onNotify: (payload: string | null) => void): Promise<() => Promise<void>>;
  /** Wakes every listener on `channel`, this instance's included; a no-op on SQLite. Payload ≤ 8,000 bytes. */
  notify(channel: string, payload?: string): Promise<void>;
  ping(): Promise<boolean>;
  /** SQLite files: the WAL's size and bound, and whether writes are refused for lack of space; null elsewhere. */
  sqliteStatus(): SqliteStatus | null;
  close(): Promise<void>;
}

export interface SqliteStatus {
  /** Null for `:memory:` (no WAL). */
  wal: WalStatus | null;
  /** The last write was refused for lack of space (and none has succeeded since). */
  storageFull: boolean;
}

export const TRANSACTION_OUTCOMES = { committed: 'committed', rolled_back: 'rolled_back' } as const;
export type TransactionOutcome = (typeof TRANSACTION_OUTCOMES)[keyof typeof TRANSACTION_OUTCOMES];

/** What the metrics learn from the database handle; both methods must be cheap and never throw. */
export interface DatabaseObserver {
  /**
   * A transaction through `transaction` ended after `seconds`. On SQLite that is from the call
   * to its batch's COMMIT, the wait for the batch included: what the caller waited for.
   */
  transaction(seconds: number, outcome: TransactionOutcome): void;
  /** SQLite only: one group commit ran `size` transactions under one COMMIT. */
  batch(size: number): void;
  /** SQLite only: the checkpointer thread ran a checkpoint; `pagesLeft` it did not copy back. */
  checkpoint?(kind: CheckpointKind, outcome: CheckpointOutcome, pagesLeft: number): void;
  /** SQLite only: our writers were held `seconds` for a RESTART checkpoint. */
  writesHeld?(seconds: number): void;
}

/** Observers of one handle, and the transaction runner wrapped to tell them. */
function createObservers() {
  const observers = new Set<DatabaseObserver>();
  return {
    observe(observer: DatabaseObserver): () => void {
      observers.add(observer);
      return () => observers.delete(observer);
    },
    batch(size: number): void {
      for (const observer of observers) observer.batch(size);
    },
    checkpoint(kind: CheckpointKind, outcome: CheckpointOutcome, pagesLeft: number): void {
      for (const observer of observers) observer.checkpoint?.(kind, outcome, pagesLeft);
    },
    writesHeld(seconds: number): void {
      for (const observer of observers) observer.writesHeld?.(seconds);
    },
    timed(run: TransactionRunner): TransactionRunner {
      return async (work) => {
        if (observers.size === 0) return run(work);
        const started = performance.now();
        const tell = (outcome: TransactionOutcome) => {
          const seconds = (performance.now() - started) / 1000;
          for (const observer of observers) observer.transaction(seconds, outcome);
        };
        try {
          const value = await run(work);
          tell(TRANSACTION_OUTCOMES.committed);
          return value;
        } catch (error) {
          tell(TRANSACTION_OUTCOMES.rolled_back);
          throw error;
        }
      };
    },
  };
}

export interface OpenDatabaseOptions {
  logger: Logger;
  /** Skip migrations (for tools that only read). */
  migrate?: boolean;
  /** SQLite files: how the checkpointer thread runs (tests shorten its timers and watch it). */
  checkpointer?: Partial<CheckpointerOptions>;
  /**
   * Called before each connection is taken (SQLite: the loan of its one connection; PostgreSQL: a
   * pool connect) and before each `transaction`, with whether the caller runs inside the work of
   * a `transaction`. Tests refuse `true`: a request that holds the connection and waits for a
   * second one freezes SQLite and stalls PostgreSQL's pool. Without it nothing is marked.
   */
  beforeConnection?: (insideTransaction: boolean) => void;
}

/**
 * Marks the work of `transaction`, for `beforeConnection` to tell a query on the top-level
 * database made from inside a transaction (which waits for the connection the transaction holds).
 */
function createTransactionMark(beforeConnection: OpenDatabaseOptions['beforeConnection']) {
  if (!beforeConnection) return { check: undefined, marked: (run: TransactionRunner) => run };
  const mark = new AsyncLocalStorage<true>();
  const check = () => beforeConnection(mark.getStore() === true);
  const marked =
    (run: TransactionRunner): TransactionRunner =>
    (work) => {
      check();
      return run((trx) => mark.run(true, () => work(trx)));
    };
  return { check, marked };
}

export async function openDatabase(config: DatabaseConfig, options: OpenDatabaseOptions): Promise<Database> {
  return config.url.startsWith('sqlite:') ? openSqlite(config, options) : openPostgres(config, options);
}

export function sqlitePath(url: string): string {
  const rest = url.slice('sqlite:'.length);
  if (rest === ':memory:') return ':memory:';
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

function openSqlite(
  config: DatabaseConfig,
  { logger, migrate = true, checkpointer: checkpointerOptions, beforeConnection }: OpenDatabaseOptions,
): Database {
  const path = sqlitePath(config.url);
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  // The busy timeout: how long a write waits for the lock another process holds (two services
  // on one file) before the request gets a 503. Writers take the lock up front (see
  // sqlite-driver.ts), so the wait is real, not an instant SQLITE_BUSY_SNAPSHOT.
  const raw = new BetterSqlite3(path, { timeout: config.statementTimeoutMs });
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  // Every unit of a group commit runs in a savepoint, and SQLite keeps the pages a savepoint (or
  // a statement that fires a trigger) first changes in a sub-journal, which spills to a temporary
  // file past 64 KiB: a submit touches enough of work_items' index pages that each one wrote
  // dozens of pages to that file, on the event loop, and inserts ran measurably slower than with
  // it in memory (bench/README.md). In memory it stays until the savepoint ends. The cost is that
  // a sort no index serves is held in memory too; every listing has its index
  // (test/work/query-plans.test.ts).
  raw.pragma('temp_store = MEMORY');
  // Migrations run once at start-up: SQLite fsyncs their commits itself.
  raw.pragma('synchronous = FULL');
  if (migrate) migrateSqlite(raw, logger);
  // From here on a COMMIT only write()s the WAL; the fdatasync that makes it durable runs on
  // libuv's threadpool and every answer waits for it (wal-sync.ts, group-commit.ts). NORMAL
  // still fsyncs in two places: the WAL header when the log restarts from its beginning (once
  // per checkpoint cycle), and checkpoints, which therefore run on a thread of their own
  // (sqlite-checkpointer.ts) instead of at the commit that crosses 1,000 pages.
  if (!inMemory) raw.pragma('synchronous = NORMAL');
  const sync = inMemory
    ? NO_SYNC
    : createWalSync(path, (error) =>
        logger.fatal(
          { err: { message: error.message } },
          'flushing the SQLite WAL failed: no write is acknowledged any more; restart the service',
        ),
      );
  const observers = createObservers();
  const maxBytes = (config.sqliteWalMaxMb ?? DEFAULT_SQLITE_WAL_MAX_MB) * 1024 * 1024;
  // When the log starts over after a checkpoint, the next commit cuts the file back to this.
  if (!inMemory && maxBytes > 0) raw.pragma(`journal_size_limit = ${maxBytes}`);
  const checkpointer = inMemory
    ? null
    : startCheckpointer(raw, path, config.statementTimeoutMs, logger, {
        exitAfter: config.sqliteCheckpointerExitAfter ?? null,
        maxBytes,
        ...checkpointerOptions,
        onCheckpoint: (result) => {
          observers.checkpoint(result.kind, result.outcome, result.log >= 0 ? result.log - result.checkpointed : 0);
          checkpointerOptions?.onCheckpoint?.(result);
        },
        onHold: (seconds) => {
          observers.writesHeld(seconds);
          checkpointerOptions?.onHold?.(seconds);
        },
      });
  const storage = watchStorage(logger);
  // Every flush asked for follows a commit (a batch or a write in autocommit): the WAL grew.
  const durable = () => {
    checkpointer?.committed();
    return sync.durable();
  };
  const guard = createTransactionMark(beforeConnection);
  const kysely = new Kysely<DatabaseSchema>({
    dialect: new DurableSqliteDialect({
      database: raw,
      prepare: statementCache(raw),
      durable,
      gate: checkpointer?.gate ?? OPEN_GATE,
      storage,
      ...(guard.check && { beforeLoan: guard.check }),
    }),
  });
  return {
    dialect: DIALECTS.sqlite,
    kysely,
    transaction: observers.timed(
      guard.marked(
        createGroupCommit(kysely, {
          onBatch: observers.batch,
          ...(!inMemory && { durable }),
        }),
      ),
    ),
    durable,
    pool: null,
    observe: observers.observe,
    listen: async () => async () => {},
    notify: async () => {},
    ping: async () => sync.failed() === null && (await pingWith(kysely)),
    sqliteStatus: () => ({ wal: checkpointer?.status() ?? null, storageFull: storage.full }),
    close: async () => {
      // The checkpointer's connection first, so ours is the last and SQLite checkpoints and
      // removes the WAL as it closes; then the WAL descriptor, once no flush uses it.
      await checkpointer?.stop();
      await kysely.destroy();
      await sync.close();
    },
  };
}

/**
 * Writes refused for lack of space: one log line when they start, one when a write succeeds
 * again. Nothing else to undo: a refused write left nothing behind, and the next one that
 * finds room simply succeeds.
 */
function watchStorage(logger: Logger): StorageWatch & { readonly full: boolean } {
  let full = false;
  return {
    get full() {
      return full;
    },
    refused(error) {
      if (full) return;
      full = true;
      logger.error(
        { err: { message: (error as Error).message, code: (error as { code?: unknown }).code } },
        'SQLite cannot grow the database: the disk is full; writes are refused with 503 until space is freed',
      );
    },
    written() {
      if (!full) return;
      full = false;
      logger.warn('SQLite writes succeed again: space was freed');
    },
  };
}

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew; the service sends the same few dozen SQL texts over and
 * over, so each is prepared once. Safe because the one connection runs one query at a time.
 */
function statementCache(raw: BetterSqlite3.Database): (text: string) => BetterSqlite3.Statement {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return (text) => {
    let statement = statements.get(text);
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statement = raw.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };
}

const PG_TYPES = {
  INT8: 20,
  TIMESTAMPTZ: 1184,
  TIMESTAMP: 1114,
} as const;

// One parser table per pool instead of pg's global one, so nothing else in the process changes.
function postgresTypeParser(oid: number, format?: string): (value: string) => unknown {
  if (oid === PG_TYPES.TIMESTAMPTZ || oid === PG_TYPES.TIMESTAMP) {
    // pg's own parser reads PostgreSQL's text form exactly; `new Date(text)` takes "0001-01-01
    // 00:00:00+00" for 2001 (a two-digit year) and fails on an offset with seconds.
    const parse = pg.types.getTypeParser(oid, 'text') as (value: string) => Date;
    return (value) => parse(value).toISOString();
  }
  if (oid === PG_TYPES.INT8) return (value) => Number(value);
  return pg.types.getTypeParser(oid, format as 'text');
}

/**
 * The URL to connect with: an answer means the commit is on disk, which a role, database or URL
 * setting of synchronous_commit=off would break silently. One look at the setting a session gets
 * decides; only `off` is overridden (the other values all flush locally and are left alone), by a
 * startup option, which outranks role and database settings and comes after the URL's own.
 */
async function durableConnectionString(url: string, connectionTimeoutMillis: number): Promise<string> {
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis });
  await probe.connect();
  try {
    const { rows } = await probe.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    if (rows[0]?.synchronous_commit !== 'off') return url;
  } finally {
    await probe.end();
  }
  const parsed = new URL(url);
  parsed.searchParams.set('options', `${parsed.searchParams.get('options') ?? ''} -c synchronous_commit=on`.trim());
  return parsed.toString();
}

async function openPostgres(
  config: DatabaseConfig,
  { logger, migrate = true, beforeConnection }: OpenDatabaseOptions,
): Promise<Database> {
  const connectionTimeoutMillis = Math.max(1_000, Math.min(config.statementTimeoutMs, 10_000));
  const pool = new pg.Pool({
    connectionString: await durableConnectionString(config.url, connectionTimeoutMillis),
    max: config.poolSize,
    statement_timeout: config.statementTimeoutMs,
    // The server enforces statement_timeout; if the network goes silent, only a client-side
    // timeout and TCP keep-alive notice, so a query can never hang forever.
    query_timeout: config.statementTimeoutMs + 1_000,
    keepAlive: true,
    connectionTimeoutMillis,
    idleTimeoutMillis: 30_000,
    types: { getTypeParser: postgresTypeParser } as pg.CustomTypesConfig,
  });
  // A backend killed while a client sits idle emits here; without a listener the process dies.
  pool.on('error', (error) => logger.warn({ err: { message: error.message } }, 'idle database connection lost'));
  // The pool listens only while a client is idle. A backend killed while its client is checked
  // out but between two queries (mid-transaction) makes pg emit 'error' on the client, which
  // would crash the process; swallowing it is safe because the next query on that client fails
  // (a 503), and the pool discards the client on release as no longer queryable.
  pool.on('connect', (client) => client.on('error', () => undefined));
  if (migrate) {
    try {
      await migratePostgres(pool, logger);
    } catch (error) {
      await pool.end();
      throw error;
    }
  }
  const guard = createTransactionMark(beforeConnection);
  if (guard.check) guardConnect(pool, guard.check);
  const kysely = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  const observers = createObservers();
  return {
    dialect: DIALECTS.postgres,
    kysely,
    transaction: observers.timed(guard.marked((work) => kysely.transaction().execute(work))),
    durable: async () => {},
    pool,
    observe: observers.observe,
    listen: (channel, onNotify) => listenPostgres(config, logger, channel, onNotify),
    notify: async (channel, payload = '') => {
      await pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    ping: () => pingWith(kysely),
    sqliteStatus: () => null,
    close: async () => {
      await kysely.destroy();
      // Kysely ends the pool only once it has run a query itself; the migrations use the pool
      // directly, so a process that did nothing else (a refused CLI command) kept a connection.
      if (!pool.ended) await pool.end();
    },
  };
}

/** Runs `check` before every connect of `pool`: Kysely's and `pool.query`'s alike. */
function guardConnect(pool: pg.Pool, check: () => void): void {
  const connect = pool.connect.bind(pool) as (callback?: (...args: unknown[]) => void) => unknown;
  (pool as unknown as { connect: typeof connect }).connect = (callback) => {
    try {
      check();
    } catch (error) {
      if (!callback) return Promise.reject(error);
      callback(error, undefined, () => undefined);
      return undefined;
    }
    return connect(callback);
  };
}

const LISTEN_RETRY_MS = 1_000;

async function listenPostgres(
  config: DatabaseConfig,
  logger: Logger,
  channel: string,
  onNotify: (payload: string | null) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: config.url, connectionTimeoutMillis: 5_000 });
    next.on('notification', (message) => onNotify(message.payload ?? ''));
    next.on('error', (error) => {
      logger.warn({ err: { message: error.message } }, 'event listener connection lost; reconnecting');
      scheduleReconnect(next);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (stopped) {
        await next.end();
        return;
      }
      client = next;
      // Anything committed while we were away is picked up by the listener's catch-up.
      onNotify(null);
    } catch (error) {
      logger.warn({ err: { message: (error as Error).message } }, 'event listener cannot connect; retrying');
      scheduleReconnect(next);
    }
  };

  const scheduleReconnect = (failed: pg.Client) => {
    void failed.end().catch(() => undefined);
    if (client === failed) client = null;
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, LISTEN_RETRY_MS);
  };

  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}

async function pingWith(kysely: DatabaseHandle): Promise<boolean> {
  try {
    await sql`select 1`.execute(kysely);
    return true;
  } catch {
    return false;
  }
}

interface CodedError {
  code?: unknown;
  message?: unknown;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as CodedError | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as CodedError | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  '57P01', // admin_shutdown: pg_terminate_backend
  '57P02',
  '57P03',
  '57014', // query_canceled: the statement timeout fired
  '53300', // too_many_connections
  // Two batch statements that lock rows in different orders (across instances) can deadlock;
  // PostgreSQL aborts one, and the caller is told to try again, like SQLite's busy below.
  '40P01', // deadlock_detected
  '40001', // serialization_failure
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

// better-sqlite3 reports extended result codes: SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_TIMEOUT,
// SQLITE_LOCKED_SHAREDCACHE… Every one of them means "another connection holds the lock".
const SQLITE_BUSY_CODE = /^SQLITE_(BUSY|LOCKED)(_|$)/;

const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Cannot use a pool after calling end',
  'driver has already been destroyed',
];

/** True when the database could not serve the query, as opposed to refusing it. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const coded = error as CodedError | null;
  if (!coded) return false;
  if (typeof coded.code === 'string' && (UNAVAILABLE_CODES.has(coded.code) || SQLITE_BUSY_CODE.test(coded.code))) {
    return true;
  }
  const message = typeof coded.message === 'string' ? coded.message : '';
  return UNAVAILABLE_MESSAGES.some((fragment) => message.includes(fragment));
}
