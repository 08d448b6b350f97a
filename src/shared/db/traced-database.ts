import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type pg from 'pg';
import { DIALECTS, type Database } from './database.js';
import type { SpanAttributes, SpanHandle, Tracing } from '../observability/tracing.js';

// Spans for the database, within a request's trace only: one per logical transaction, and one per statement
// outside a transaction (inside one too on PostgreSQL), through Kysely or straight to the pool. No SQL text,
// no parameters: the operation and the table say what ran, and values are the users' data.

const SYSTEM_NAMES = { sqlite: 'sqlite', postgres: 'postgresql' } as const;

const OPERATIONS: Readonly<Record<string, string>> = {
  SelectQueryNode: 'SELECT',
  InsertQueryNode: 'INSERT',
  UpdateQueryNode: 'UPDATE',
  DeleteQueryNode: 'DELETE',
  MergeQueryNode: 'MERGE',
};

/** The table a query names first, when it names one plainly. */
function tableOf(node: RootOperationNode): string | null {
  const shape = node as unknown as { into?: OperationNode; table?: OperationNode; from?: { froms?: OperationNode[] } };
  let table: OperationNode | undefined = shape.into ?? shape.table ?? shape.from?.froms?.[0];
  if (table?.kind === 'AliasNode') table = (table as unknown as { node: OperationNode }).node;
  if (table?.kind !== 'TableNode') return null;
  const name = (table as unknown as { table?: { identifier?: { name?: unknown } } }).table?.identifier?.name;
  return typeof name === 'string' ? name : null;
}

/**
 * A span from the query's compilation to its result. A statement that fails never reaches
 * `transformResult`, so its span is dropped unsent; the transaction's or the request's span
 * records the failure.
 */
function statementSpans(tracing: Tracing, system: string): KyselyPlugin {
  const open = new WeakMap<object, SpanHandle>();
  return {
    transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
      const operation = OPERATIONS[node.kind] ?? 'SQL';
      const table = tableOf(node);
      const attributes: SpanAttributes = {
        'db.system.name': system,
        'db.operation.name': operation,
        ...(table !== null && { 'db.collection.name': table }),
      };
      open.set(queryId, tracing.start(table === null ? operation : `${operation} ${table}`, attributes));
      return node;
    },
    async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const span = open.get(queryId);
      if (span) {
        open.delete(queryId);
        if (Array.isArray(result.rows)) span.set({ 'db.response.returned_rows': result.rows.length });
        span.end();
      }
      return result;
    },
  };
}

/** `INSERT work_items` from `WITH item AS (INSERT INTO work_items …`: the first write, else the first read. */
function summarize(text: string): { operation: string; table: string | null } {
  const write = /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(\w+)/i.exec(text);
  if (write) return { operation: write[1]!.split(/\s+/)[0]!.toUpperCase(), table: write[2]! };
  const read = /\bSELECT\b[\s\S]*?\bFROM\s+"?(\w+)/i.exec(text);
  if (read) return { operation: 'SELECT', table: read[1]! };
  return { operation: /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL', table: null };
}

/** The few dozen statement texts the services send, summarized once each. */
const SUMMARIES = new Map<string, { operation: string; table: string | null }>();
const MAX_SUMMARIES = 512;

function summaryOf(text: string): { operation: string; table: string | null } {
  let summary = SUMMARIES.get(text);
  if (!summary) {
    if (SUMMARIES.size >= MAX_SUMMARIES) SUMMARIES.clear();
    summary = summarize(text);
    SUMMARIES.set(text, summary);
  }
  return summary;
}

type PoolQuery = (...args: unknown[]) => Promise<pg.QueryResult>;

/** `query` of a pool or of a client it handed out, with a span around each promise it returns. */
function tracedQuery(untraced: PoolQuery, tracing: Tracing): PoolQuery {
  return (...args) => {
    if (typeof args[args.length - 1] === 'function') return untraced(...args);
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: unknown } | null)?.text ?? '');
    const { operation, table } = summaryOf(typeof text === 'string' ? text : '');
    const span = tracing.start(table === null ? operation : `${operation} ${table}`, {
      'db.system.name': SYSTEM_NAMES.postgres,
      'db.operation.name': operation,
      ...(table !== null && { 'db.collection.name': table }),
    });
    return untraced(...args).then(
      (result) => {
        span.set({ 'db.response.returned_rows': result.rowCount ?? result.rows.length });
        span.end();
        return result;
      },
      (error: unknown) => {
        // The SQLSTATE, never the message: PostgreSQL quotes the offending value in some.
        const code = (error as { code?: unknown } | null)?.code;
        span.fail(typeof code === 'string' ? code : 'error');
        span.end();
        throw error;
      },
    );
  };
}

/** Everything of `target` as it is, but `query` traced. */
function withTracedQuery<T extends object>(
  target: T,
  query: PoolQuery,
  more: (property: string | symbol) => unknown = () => undefined,
): T {
  return new Proxy(target, {
    get(object, property) {
      if (property === 'query') return query;
      const replaced = more(property);
      if (replaced !== undefined) return replaced;
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/**
 * The pool, with a span around each promise-returning `query`, its own and that of the clients
 * it hands out (the batch statements that take a connection first); everything else is the pool's own.
 */
function tracedPool(pool: pg.Pool, tracing: Tracing): pg.Pool {
  const query = tracedQuery((pool.query as unknown as PoolQuery).bind(pool), tracing);
  const connect = async (...args: unknown[]) => {
    if (typeof args[0] === 'function') return (pool.connect as (...a: unknown[]) => unknown)(...args);
    const client = await pool.connect();
    return withTracedQuery(client, tracedQuery((client.query as unknown as PoolQuery).bind(client), tracing));
  };
  return withTracedQuery(pool, query, (property) => (property === 'connect' ? connect : undefined));
}

/** `database` with spans, when tracing is on; `database` itself, untouched, when it is off. */
export function traceDatabase(database: Database, tracing: Tracing): Database {
  if (!tracing.enabled) return database;
  const system = SYSTEM_NAMES[database.dialect];
  const plugin = statementSpans(tracing, system);
  const attributes: SpanAttributes = { 'db.system.name': system };
  const inTrace = { onlyInTrace: true } as const;
  const postgres = database.dialect === DIALECTS.postgres;
  return {
    ...database,
    kysely: database.kysely.withPlugin(plugin),
    pool: database.pool && tracedPool(database.pool, tracing),
    transaction: (work) =>
      tracing.span(
        'db.transaction',
        attributes,
        // On SQLite a transaction's statements run in a group-commit batch shared with other requests' and
        // their spans would hang under whichever request began it, so the transaction's span is the only one.
        () => database.transaction(postgres ? (trx) => work(trx.withPlugin(plugin)) : work),
        inTrace,
      ),
  };
}
