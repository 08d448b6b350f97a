import type BetterSqlite3 from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  SqliteDialect,
  type TransactionSettings,
} from 'kysely';
import type { TransactionRunner } from './group-commit.js';
import type { SqliteWriter, WriterSession } from './sqlite-writer.js';

// The Kysely dialect of the SQLite default: reads on the main thread, writes on the writer
// thread (sqlite-writer.ts), so no statement that writes, and no COMMIT's fsync, ever runs on
// the event loop. The stores' SQL does not know: they speak Kysely as before.
//
// - A statement outside a transaction that only reads (better-sqlite3's `readonly`: SQLite's own
//   verdict) runs at once on the main thread's connection, which is `query_only`. In WAL mode a
//   reader never waits for the writer; it sees every commit the writer has answered for.
// - A statement outside a transaction that writes becomes a transaction of its own in the group
//   commit (`runTransaction`): it shares the next COMMIT, and is answered once that is on disk.
// - A transaction (the group commit's batch, or `kysely.transaction()`) runs wholly on the
//   writer thread, one at a time (a mutex: SQLite has one writer). BEGIN, SAVEPOINT, RELEASE and
//   ROLLBACK TO are pipelined (no round trip); the statements and COMMIT are answered.
//
// BEGIN is IMMEDIATE: a deferred BEGIN reads first and asks for the write lock only at its first
// write; when another process (the classifier and the work service share the file) has written
// in between, that upgrade fails at once with SQLITE_BUSY_SNAPSHOT, and SQLite never waits for
// it: the busy timeout cannot help. Every transaction here writes, so each takes the write lock
// up front, where the busy timeout does apply: a second writer waits its turn instead of failing.

export interface ThreadedSqliteConfig {
  /** The main thread's connection, for reads; `query_only`. */
  reader: BetterSqlite3.Database;
  writer: SqliteWriter;
  /** The group commit, given once the Kysely over this dialect exists (it runs on it). */
  topLevelWrites: () => TransactionRunner;
}

const STATEMENT_CACHE_SIZE = 256;

class Mutex {
  #tail: Promise<void> = Promise.resolve();

  /** Resolves when the caller holds the lock, with the function that releases it. */
  lock(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const acquired = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => held);
    return acquired;
  }
}

class ThreadedConnection implements DatabaseConnection {
  /** Set between BEGIN and COMMIT or ROLLBACK: the transaction's session on the writer thread. */
  session: WriterSession | null = null;
  unlock: (() => void) | null = null;

  constructor(readonly driver: ThreadedSqliteDriver) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiledQuery;
    if (this.session) return this.session.execute(sql, parameters) as Promise<QueryResult<R>>;
    const statement = this.driver.prepare(sql);
    if (!statement.readonly) {
      return this.driver.topLevelWrites()((trx) => trx.executeQuery(compiledQuery)) as Promise<QueryResult<R>>;
    }
    try {
      return Promise.resolve({ rows: statement.all(parameters) as R[] });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.driver.prepare(compiledQuery.sql);
    if (this.session || !statement.readonly) throw new Error('SQLite streams only reads outside a transaction');
    for (const row of statement.iterate(compiledQuery.parameters)) yield { rows: [row as R] };
  }
}

class ThreadedSqliteDriver implements Driver {
  readonly #config: ThreadedSqliteConfig;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  readonly #writeLock = new Mutex();

  constructor(config: ThreadedSqliteConfig) {
    this.#config = config;
  }

  topLevelWrites(): TransactionRunner {
    return this.#config.topLevelWrites();
  }

  /** Kysely prepares every query anew; the service sends the same few dozen SQL texts, so each is prepared once. */
  prepare(text: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(text);
    if (!statement) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear();
      statement = this.#config.reader.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ThreadedConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    const threaded = connection as ThreadedConnection;
    threaded.unlock = await this.#writeLock.lock();
    try {
      threaded.session = this.#config.writer.session();
    } catch (error) {
      this.#end(threaded);
      throw error;
    }
    await threaded.session.execute('begin immediate', [], true);
  }

  /** A COMMIT that failed leaves the transaction open: Kysely rolls it back next, which ends it. */
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const threaded = connection as ThreadedConnection;
    if (!threaded.session) throw new Error('no transaction is open');
    await threaded.session.execute('commit', []);
    this.#end(threaded);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const threaded = connection as ThreadedConnection;
    try {
      if (!threaded.session) throw new Error('no transaction is open');
      await threaded.session.execute('rollback', []);
    } finally {
      this.#end(threaded);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#pipelined(connection, `savepoint ${quoted(name)}`, compileQuery);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#pipelined(connection, `rollback to ${quoted(name)}`, compileQuery);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    await this.#pipelined(connection, `release ${quoted(name)}`, compileQuery);
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.#config.writer.close();
    this.#config.reader.close();
  }

  async #pipelined(connection: DatabaseConnection, text: string, _compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    const session = (connection as ThreadedConnection).session;
    if (!session) throw new Error('no transaction is open');
    await session.execute(text, [], true);
  }

  #end(connection: ThreadedConnection): void {
    connection.session = null;
    const unlock = connection.unlock;
    connection.unlock = null;
    unlock?.();
  }
}

/** Savepoint names are the group commit's own constants; quoted all the same. */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export class ThreadedSqliteDialect extends SqliteDialect {
  readonly #config: ThreadedSqliteConfig;

  constructor(config: ThreadedSqliteConfig) {
    // SqliteDialect's own driver is never created; the compiler, adapter and introspector are its.
    super({ database: config.reader as never });
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ThreadedSqliteDriver(this.#config);
  }
}
