import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { DIALECTS, type Database } from './db.js';
import type { SpanAttributes, SpanHandle, Tracing } from './tracing.js';

// Spans for the database: one per logical transaction, on both stores, and one per statement
// outside a transaction (and, on PostgreSQL, inside one). On SQLite the statements of a
// transaction run inside a group-commit batch (group-commit.ts) shared with other requests'
// transactions: their spans would hang under whichever request started the batch, so there
// the transaction's span (from the caller's call to its commit) is the only one. No SQL text,
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

/** `database` with spans, when tracing is on; `database` itself, untouched, when it is off. */
export function traceDatabase(database: Database, tracing: Tracing): Database {
  if (!tracing.enabled) return database;
  const system = SYSTEM_NAMES[database.dialect];
  const plugin = statementSpans(tracing, system);
  const attributes: SpanAttributes = { 'db.system.name': system };
  const postgres = database.dialect === DIALECTS.postgres;
  return {
    ...database,
    kysely: database.kysely.withPlugin(plugin),
    transaction: (work) =>
      tracing.span('db.transaction', attributes, () =>
        database.transaction(postgres ? (trx) => work(trx.withPlugin(plugin)) : work),
      ),
  };
}
