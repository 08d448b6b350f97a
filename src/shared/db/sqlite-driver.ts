import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
  SqliteDriver,
} from 'kysely';
import { StorageFullError } from '../errors.js';
import { OPEN_GATE, type WriteGate } from './sqlite-write-gate.js';

// Kysely's SQLite driver with two changes: transactions begin IMMEDIATE, and a write outside a
// transaction returns only once it is durable. Each is explained where it is done.

export interface DurableSqliteConfig {
  database: BetterSqlite3.Database;
  /** Prepares `sql` (database.ts caches them). */
  prepare: (sql: string) => BetterSqlite3.Statement;
  /** Resolves once a flush that began after the call has finished (wal-sync.ts). */
  durable: () => Promise<void>;
  /** By default never closed. */
  gate?: WriteGate;
  /** Told of each write refused for lack of space, and of each write committed. */
  storage?: StorageWatch;
  /** Called before the connection is lent (database.ts `beforeConnection`: the tests' guard). */
  beforeLoan?: () => void;
}

export interface StorageWatch {
  refused(error: unknown): void;
  written(): void;
}

const ROLLBACK = /^\s*rollback\b/i;

const UNWATCHED: StorageWatch = { refused: () => {}, written: () => {} };

// SQLITE_FULL: the database or its WAL cannot grow; SQLITE_IOERR_SHMSIZE: nor can the -shm file.
const STORAGE_FULL_CODES = new Set(['SQLITE_FULL', 'SQLITE_IOERR_SHMSIZE']);

export function isStorageFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && STORAGE_FULL_CODES.has(code);
}

/** One connection, lent to one user at a time (the mutex); each loan its own object. */
class Loan implements DatabaseConnection {
  #held = true;

  constructor(
    private readonly config: DurableSqliteConfig,
    private readonly mutex: Mutex,
  ) {}

  /** Gives the connection back (at most once per loan). */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.mutex.unlock();
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    // A loan given back early (below) and used again takes the connection anew.
    if (!this.#held) {
      await this.mutex.lock();
      this.#held = true;
    }
    const { database, prepare, durable, gate = OPEN_GATE, storage = UNWATCHED } = this.config;
    const statement = prepare(compiledQuery.sql);
    if (!statement.readonly) {
      // Held: wait with the connection given back, then take it anew (the gate may close again).
      for (
        let closed = database.inTransaction ? null : gate.closed();
        closed;
        closed = database.inTransaction ? null : gate.closed()
      ) {
        this.release();
        await closed;
        await this.mutex.lock();
        this.#held = true;
      }
    }
    const outside = !database.inTransaction;
    let result: QueryResult<R>;
    try {
      result = run<R>(statement, compiledQuery.parameters);
    } catch (error) {
      if (!database.inTransaction) gate.idle();
      if (!isStorageFull(error)) throw error;
      storage.refused(error);
      throw new StorageFullError((error as Error).message, { cause: error });
    }
    // COMMIT counts as `readonly` (it only ends the transaction): what matters is what ended.
    if (!database.inTransaction && (!outside || !statement.readonly)) {
      gate.idle();
      if (!ROLLBACK.test(compiledQuery.sql)) storage.written();
    }
    if (statement.readonly) return result;
    // Not `readonly` covers BEGIN IMMEDIATE too (it takes the write lock), which leaves a
    // transaction open: only a statement that began and ended outside one committed by itself.
    if (!outside || database.inTransaction) return result;
    // Many writes run in autocommit (dedupe touches, intake cursors, a token's last use); rather than trust
    // every feature to wait for the flush (wal-sync.ts), the driver does, with the connection given back so
    // other statements, the next group commit among them, run meanwhile. Committed when run returned;
    // durable once the flush that begins now has finished.
    this.release();
    await durable();
    return result;
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiledQuery.query))
      throw new Error('Sqlite driver only supports streaming of select queries');
    // Read whole, then handed out a row at a time: a cursor kept open across the consumer's
    // awaits would keep its snapshot, and the WAL behind it, as long as the consumer liked.
    const rows = readRows<R>(this.config.prepare(compiledQuery.sql), compiledQuery.parameters);
    for (const row of rows) yield { rows: [row] };
  }
}

function run<R>(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): QueryResult<R> {
  if (statement.reader) return { rows: readRows<R>(statement, parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
    insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
    rows: [],
  };
}

/**
 * Rows as objects, built in JavaScript from better-sqlite3's arrays. Its own objects get their
 * properties one at a time, which for a row of work_items' 26 columns cost more than the statement
 * itself (bench/README.md): an object literal of a fixed shape, compiled once per statement, is what
 * V8 builds fastest. Column names come from
 * SQLite (our schema and our aliases) and are quoted as JSON string literals; a name given
 * twice keeps its last value, as better-sqlite3's objects do.
 */
interface RowBuilder {
  width: number;
  build: (values: unknown[]) => unknown;
}

const builders = new WeakMap<BetterSqlite3.Statement, RowBuilder>();

function rowBuilder(statement: BetterSqlite3.Statement): RowBuilder {
  const names = statement.columns().map((column) => column.name);
  // A column named __proto__ is an own property (a computed key), never the row's prototype.
  const fields = names
    .map((name, i) => `${name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name)}: values[${i}]`)
    .join(', ');
  const build = new Function('values', `return { ${fields} };`) as RowBuilder['build'];
  const builder = { width: names.length, build };
  builders.set(statement, builder);
  return builder;
}

function readRows<R>(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): R[] {
  statement.raw(true);
  const values = statement.all(parameters) as unknown[][];
  if (values.length === 0) return [];
  let builder = builders.get(statement) ?? rowBuilder(statement);
  // A schema change makes SQLite prepare the statement again, maybe wider: build anew.
  if (values[0]!.length !== builder.width) builder = rowBuilder(statement);
  const rows = new Array<R>(values.length);
  for (let i = 0; i < values.length; i++) rows[i] = builder.build(values[i]!) as R;
  return rows;
}

class Mutex {
  #held: Promise<void> | undefined;
  #free: (() => void) | undefined;

  async lock(): Promise<void> {
    while (this.#held) await this.#held;
    this.#held = new Promise((resolve) => {
      this.#free = resolve;
    });
  }

  unlock(): void {
    const free = this.#free;
    this.#held = undefined;
    this.#free = undefined;
    free?.();
  }
}

class DurableSqliteDriver implements Driver {
  readonly #mutex = new Mutex();

  constructor(private readonly config: DurableSqliteConfig) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.config.beforeLoan?.();
    await this.#mutex.lock();
    return new Loan(this.config, this.#mutex);
  }

  /**
   * BEGIN IMMEDIATE, not Kysely's deferred BEGIN: a deferred transaction upgrades to the write lock at its
   * first write, and if another process (the two services share the file) wrote in between, that fails at
   * once with SQLITE_BUSY_SNAPSHOT, which the busy timeout cannot help. Every transaction here writes, so each
   * takes the lock up front, where the busy timeout applies: a second writer waits its turn.
   */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  // Savepoints: Kysely's own driver compiles them the same way; borrowed by delegation.
  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return SqliteDriver.prototype.savepoint.call(this, connection, name, compile);
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return SqliteDriver.prototype.rollbackToSavepoint.call(this, connection, name, compile);
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return SqliteDriver.prototype.releaseSavepoint.call(this, connection, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as Loan).release();
  }

  async destroy(): Promise<void> {
    this.config.database.close();
  }
}

export class DurableSqliteDialect extends SqliteDialect {
  readonly #config: DurableSqliteConfig;

  constructor(config: DurableSqliteConfig) {
    // SqliteDialect wants a database for its own driver, which createDriver replaces.
    super({ database: config.database });
    this.#config = config;
  }

  override createDriver(): Driver {
    return new DurableSqliteDriver(this.#config);
  }
}
