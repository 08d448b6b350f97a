import { CompiledQuery, type DatabaseConnection, type Driver, SqliteDialect, type SqliteDialectConfig, SqliteDriver } from 'kysely';

// Kysely opens SQLite transactions with a plain (deferred) BEGIN: the transaction reads first
// and asks for the write lock only at its first write. When another process (the classifier
// and the work service share the file) has written in between, that upgrade fails at once with
// SQLITE_BUSY_SNAPSHOT, and SQLite never waits for it: the busy timeout cannot help. Every
// transaction here writes, so each takes the write lock up front with BEGIN IMMEDIATE, where the
// busy timeout does apply: a second writer waits its turn instead of failing.

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}
