import { type Kysely, type Transaction, sql } from 'kysely';
import type pg from 'pg';
import type { Database, Dialect } from '../shared/db.js';
import type { TransactionRunner } from '../shared/group-commit.js';
import type { DispatchReason, Outcome, SortOrder, WorkStatus } from './schemas.js';
import { claimPostgres } from './store-postgres-claim.js';
import { claimSqlite, claimable } from './store-sqlite-claim.js';
import {
  applyChangesPostgres,
  changeShape,
  createItemsPostgres,
  createItemsQuery,
  findManyWithDispatchesPostgres,
  isSingleStatementChange,
  type NewItem,
} from './store-postgres.js';
import { createCoalescer } from '../shared/coalesce.js';
import type { Actor } from './item-view.js';
import type { DispatchRow, IdempotencyRow, NewHistory, ProjectRow, WorkItemRow, WorkTables } from './tables.js';

export interface HistoryEntryRow extends NewHistory {
  id: number;
  work_item_id: string;
}

export interface WorkFilter {
  statuses?: WorkStatus[];
  agent?: string;
  project_id?: string;
  /** Normalized ISO 8601 UTC; items created strictly after it. */
  since?: string;
  /** Normalized ISO 8601 UTC; items changed strictly after it. */
  updated_since?: string;
  type?: string;
  created_by?: string;
}

/** Where the previous page ended, in the sort order of the listing. */
export interface PagePosition {
  created_at: string;
  id: string;
  priority: number;
}

export interface NewEvent {
  type: string;
  data: string;
  at: string;
}

export interface ItemWithDispatches {
  row: WorkItemRow;
  dispatches: DispatchRow[];
}

/**
 * One change to an item, computed by the service from the row at `from_version`: it is written
 * only if the item is still at that version, so a read and this write are as good as a lock.
 */
export interface ItemChange {
  id: string;
  from_version: number;
  /** The new values; always includes `version` and `updated_at`. */
  set: Partial<Omit<WorkItemRow, 'id'>>;
  /** Closes the open dispatch entry, if there is one. */
  closeDispatch?: { at: string; outcome: Outcome; reason: DispatchReason };
  openDispatch?: DispatchRow;
  event: NewEvent;
  history: NewHistory;
}

/**
 * Claims that run together as one statement: the same filters and the same moment, each claimer
 * a different agent (an agent twice could be handed its own dispatched item twice).
 */
export interface ClaimBatch {
  types: string[] | null;
  project_id: string | null;
  now: string;
  event_type: string;
  claimers: Claimer[];
}

export interface Claimer {
  agent: string;
  /** What the claimed item becomes: in_progress, or dispatched when the agent starts later. */
  status: 'in_progress' | 'dispatched';
  lease_s: number;
  lease_expires_at: string;
  /** The id of the dispatch entry, when the claim takes a queued item. */
  dispatch_id: string;
  actor: Actor;
}

/**
 * The SQL of the work-item service, the same on SQLite and PostgreSQL. Methods called inside
 * `transaction` run on that transaction; nothing here knows about the lifecycle rules.
 */
export interface WorkStore {
  /**
   * `trx` is the open transaction itself, for a feature that writes its own tables in the same
   * commit as a work item (mail intake records the message with the item it created).
   */
  transaction<T>(work: (store: WorkStore, trx: Transaction<any>) => Promise<T>): Promise<T>;

  /** A new item, its first dispatch (if any) and its event, atomically and as cheaply as the store allows. */
  createWorkItem(row: WorkItemRow, dispatch: DispatchRow | null, event: NewEvent, history: NewHistory): Promise<void>;
  /** New items written together: one statement per table (per slice) rather than four per item. */
  createWorkItems(items: readonly NewItem[]): Promise<void>;
  findWorkItem(id: string): Promise<WorkItemRow | undefined>;
  findWithDispatches(id: string): Promise<ItemWithDispatches | undefined>;
  /** Writes `change` if the item is still at `from_version`; false when it is gone or has moved on. */
  applyChange(change: ItemChange): Promise<boolean>;
  /** Deletes the item if it exists (and, with a version, only at that version). */
  deleteWorkItem(id: string, version: number | null, event: NewEvent): Promise<boolean>;
  listWorkItems(filter: WorkFilter, order: SortOrder, after: PagePosition | null, limit: number): Promise<WorkItemRow[]>;
  countByStatus(filter: Omit<WorkFilter, 'statuses'>): Promise<Partial<Record<WorkStatus, number>>>;

  /**
   * Takes, in one atomic step, the first claimable item for each claimer (its own dispatched
   * items first, then the queue in order, no item twice): one answer per claimer, null when
   * nothing was left for it.
   */
  claim(batch: ClaimBatch): Promise<(ItemWithDispatches | null)[]>;
  /** The earliest future `run_after` of a queued item the claim could take, or null. */
  nextRunAfter(query: Pick<ClaimBatch, 'types' | 'project_id' | 'now'>): Promise<string | null>;
  /** Items whose lease ran out at or before `now`, soonest first. */
  expiredLeases(now: string, limit: number): Promise<WorkItemRow[]>;

  listDispatches(workItemId: string): Promise<DispatchRow[]>;
  /** The item's audit trail, oldest first. */
  listHistory(workItemId: string): Promise<HistoryEntryRow[]>;

  insertProject(row: ProjectRow): Promise<void>;
  findProject(id: string): Promise<ProjectRow | undefined>;
  /** Reads a project and holds it against concurrent writers until the transaction ends. */
  lockProject(id: string): Promise<ProjectRow | undefined>;
  listProjects(): Promise<ProjectRow[]>;
  updateProject(id: string, changes: Partial<Omit<ProjectRow, 'id' | 'created_at'>>): Promise<void>;

  /**
   * Appends to the event log inside the current transaction. Ids are increasing but, on
   * PostgreSQL, may become visible out of order: the event hub holds at a gap (events.ts).
   * The hub reads the log through event-log.ts.
   */
  appendEvent(type: string, data: string, at: string): Promise<number>;
  /**
   * Holds the idempotency key against other instances until the transaction ends; false when
   * another request holds it. PostgreSQL: an advisory lock; SQLite: always true (one writer).
   */
  tryLockIdempotencyKey(scope: string, key: string): Promise<boolean>;
  findIdempotencyKey(scope: string, key: string): Promise<IdempotencyRow | undefined>;
  /** Stores the first response for a key, replacing an expired record of the same key. */
  saveIdempotencyKey(row: IdempotencyRow): Promise<void>;
  purgeIdempotencyKeysBefore(at: string): Promise<number>;
}

export const EVENTS_CHANNEL = 'agentdesk_events';

type Executor = Kysely<WorkTables> | Transaction<WorkTables>;

/** Items per statement when many are created at once on SQLite. */
const CREATE_SLICE = 40;

/**
 * `onEventsCommitted` runs after every commit that appended at least one event, so the event
 * hub learns of new events in one place whichever service wrote them.
 */
export function createWorkStore(database: Database, onEventsCommitted: () => void = () => {}): WorkStore {
  const { pool } = database;
  return buildStore(database.kysely as Kysely<WorkTables>, database.dialect, {
    runTransaction: database.transaction,
    pool: pool && coalescedPostgres(pool),
    onEventsCommitted,
  });
}

/**
 * PostgreSQL: new items, and the reads and the guarded writes of concurrent changes, each
 * coalesced into one statement per batch (shared/coalesce.ts): one round trip and one commit for many agents.
 */
function coalescedPostgres(pool: pg.Pool): PostgresScope {
  return {
    pool,
    createItem: createCoalescer({ keyOf: () => 'create', run: (items: NewItem[]) => createItemsPostgres(pool, items) }),
    findWithDispatches: createCoalescer({ keyOf: () => 'read', run: (ids: string[]) => findManyWithDispatchesPostgres(pool, ids) }),
    applyChange: createCoalescer({
      keyOf: changeShape,
      conflictOf: (change: ItemChange) => change.id.toLowerCase(),
      run: (changes: ItemChange[]) => applyChangesPostgres(pool, changes),
    }),
  };
}

interface PostgresScope {
  pool: pg.Pool;
  createItem(item: NewItem): Promise<void>;
  findWithDispatches(id: string): Promise<ItemWithDispatches | undefined>;
  applyChange(change: ItemChange): Promise<boolean>;
}

/** How a store reaches the database: directly (top level) or inside an open transaction. */
type StoreScope =
  | { runTransaction: TransactionRunner; pool: PostgresScope | null; onEventsCommitted: () => void }
  /** Inside a transaction: nested calls join it, and appended events are noted for after COMMIT. */
  | { runTransaction: null; pool: null; appended: { events: boolean } };

function buildStore(db: Executor, dialect: Dialect, scope: StoreScope): WorkStore {
  const store: WorkStore = {
    async transaction(work) {
      if (!scope.runTransaction) return work(store, db as Transaction<any>);
      const appended = { events: false };
      const result = await scope.runTransaction((trx) =>
        work(buildStore(trx as Transaction<WorkTables>, dialect, { runTransaction: null, pool: null, appended }), trx),
      );
      if (appended.events) scope.onEventsCommitted();
      return result;
    },

    async createWorkItem(row, dispatch, event, history) {
      if (scope.pool) {
        await scope.pool.createItem({ row, dispatch, event, history });
        scope.onEventsCommitted();
        return;
      }
      if (scope.runTransaction) return store.transaction((tx) => tx.createWorkItem(row, dispatch, event, history));
      await db.insertInto('work_items').values(row).execute();
      await db.insertInto('work_history').values({ ...history, work_item_id: row.id }).execute();
      if (dispatch) await db.insertInto('dispatch_log').values(dispatch).execute();
      await store.appendEvent(event.type, event.data, event.at);
    },

    async createWorkItems(items) {
      if (items.length === 0) return;
      if (scope.runTransaction) return store.transaction((tx) => tx.createWorkItems(items));
      if (dialect === 'postgres') {
        await db.executeQuery(createItemsQuery(items));
      } else {
        // Slices keep each statement's parameters (21 per item row) under SQLite's limit.
        for (let start = 0; start < items.length; start += CREATE_SLICE) {
          const slice = items.slice(start, start + CREATE_SLICE);
          await db.insertInto('work_items').values(slice.map(({ row }) => row)).execute();
          await db.insertInto('work_history').values(slice.map(({ row, history }) => ({ ...history, work_item_id: row.id }))).execute();
          const dispatches = slice.flatMap(({ dispatch }) => (dispatch ? [dispatch] : []));
          if (dispatches.length > 0) await db.insertInto('dispatch_log').values(dispatches).execute();
          await db.insertInto('events').values(slice.map(({ event }) => ({ type: event.type, data: event.data, created_at: event.at }))).execute();
        }
      }
      scope.appended.events = true;
    },

    findWorkItem(id) {
      return db.selectFrom('work_items').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findWithDispatches(id) {
      if (scope.pool) return scope.pool.findWithDispatches(id);
      const row = await store.findWorkItem(id);
      return row && { row, dispatches: await store.listDispatches(id) };
    },

    async applyChange(change) {
      if (scope.pool && isSingleStatementChange(change)) {
        const applied = await scope.pool.applyChange(change);
        if (applied) scope.onEventsCommitted();
        return applied;
      }
      if (scope.runTransaction) return store.transaction((tx) => tx.applyChange(change));
      const updated = await db
        .updateTable('work_items')
        .set(change.set)
        .where('id', '=', change.id)
        .where('version', '=', change.from_version)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      if (change.closeDispatch) {
        const { at, outcome, reason } = change.closeDispatch;
        await db
          .updateTable('dispatch_log')
          .set({ completed_at: at, outcome, reason })
          .where('work_item_id', '=', change.id)
          .where('completed_at', 'is', null)
          .execute();
      }
      if (change.openDispatch) await db.insertInto('dispatch_log').values(change.openDispatch).execute();
      await db.insertInto('work_history').values({ ...change.history, work_item_id: change.id }).execute();
      await store.appendEvent(change.event.type, change.event.data, change.event.at);
      return true;
    },

    async deleteWorkItem(id, version, event) {
      if (scope.runTransaction) return store.transaction((tx) => tx.deleteWorkItem(id, version, event));
      let query = db.deleteFrom('work_items').where('id', '=', id);
      if (version !== null) query = query.where('version', '=', version);
      const result = await query.executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await store.appendEvent(event.type, event.data, event.at);
      return true;
    },

    async claim(batch) {
      if (scope.pool) {
        const claimed = await claimPostgres(scope.pool.pool, batch);
        if (claimed.some((item) => item !== null)) scope.onEventsCommitted();
        return claimed;
      }
      if (scope.runTransaction) return store.transaction((tx) => tx.claim(batch));
      return claimSqlite(store, db, batch);
    },

    async nextRunAfter(query) {
      const row = await claimable(db, query)
        .where('status', '=', 'queued')
        .where('run_after', '>', query.now)
        .select((eb) => eb.fn.min('run_after').as('next'))
        .executeTakeFirst();
      return (row?.next as string | null | undefined) ?? null;
    },

    expiredLeases(now, limit) {
      return db
        .selectFrom('work_items')
        .selectAll()
        .where('lease_expires_at', '<=', now)
        .orderBy('lease_expires_at')
        .limit(limit)
        .execute();
    },

    listWorkItems(filter, order, after, limit) {
      let query = applyFilter(db.selectFrom('work_items').selectAll(), filter);
      if (order === 'priority') {
        if (after) {
          query = query.where((eb) =>
            eb(eb.refTuple('priority', 'created_at', 'id'), '>', eb.tuple(after.priority, after.created_at, after.id)),
          );
        }
        query = query.orderBy('priority', 'asc').orderBy('created_at', 'asc').orderBy('id', 'asc');
      } else {
        if (after) {
          query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.created_at, after.id)));
        }
        query = query.orderBy('created_at', 'desc').orderBy('id', 'desc');
      }
      return query.limit(limit).execute();
    },

    async countByStatus(filter) {
      const rows = await applyFilter(db.selectFrom('work_items'), filter)
        .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    },

    async listHistory(workItemId) {
      const rows = await db
        .selectFrom('work_history')
        .selectAll()
        .where('work_item_id', '=', workItemId)
        .orderBy('id', 'asc')
        .execute();
      return rows.map((row) => ({ ...row, id: Number(row.id) }));
    },

    listDispatches(workItemId) {
      return db
        .selectFrom('dispatch_log')
        .selectAll()
        .where('work_item_id', '=', workItemId)
        .orderBy('dispatched_at', 'asc')
        // A reassignment closes one entry and opens the next in the same millisecond: the
        // closed one came first, and at most one entry is ever open.
        .orderBy((eb) => eb.case().when('completed_at', 'is', null).then(1).else(0).end(), 'asc')
        .orderBy('completed_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },

    async insertProject(row) {
      await db.insertInto('projects').values(row).execute();
    },

    findProject(id) {
      return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    },

    lockProject(id) {
      const query = db.selectFrom('projects').selectAll().where('id', '=', id);
      // As lockWorkItem: SQLite's one writer already serializes transactions.
      return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    },

    listProjects() {
      return db.selectFrom('projects').selectAll().orderBy('name_key').orderBy('name').orderBy('id').execute();
    },

    async updateProject(id, changes) {
      await db.updateTable('projects').set(changes).where('id', '=', id).execute();
    },

    async appendEvent(type, data, at) {
      const { id } = await db
        .insertInto('events')
        .values({ type, data, created_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (scope.runTransaction) scope.onEventsCommitted();
      else scope.appended.events = true;
      return Number(id);
    },

    async tryLockIdempotencyKey(scopeName, key) {
      if (dialect !== 'postgres') return true;
      // Length-prefixed so that no two (scope, key) pairs hash the same text.
      const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${`${scopeName.length}:${scopeName}${key}`}, 0)) AS locked`.execute(db);
      return rows[0]?.locked === true;
    },

    findIdempotencyKey(scopeName, key) {
      return db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('scope', '=', scopeName)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
    },

    async saveIdempotencyKey(row) {
      await db
        .insertInto('idempotency_keys')
        .values(row)
        .onConflict((oc) =>
          oc.columns(['scope', 'idempotency_key']).doUpdateSet({
            request_hash: row.request_hash,
            response_status: row.response_status,
            response_body: row.response_body,
            created_at: row.created_at,
          }),
        )
        .execute();
    },

    async purgeIdempotencyKeysBefore(at) {
      const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', at).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
  return store;
}

// Kysely's builder types are too deep to name here; the filter only adds WHERE clauses.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function applyFilter<Q extends { where: (...args: any[]) => any }>(query: Q, filter: WorkFilter): Q {
  let filtered = query;
  if (filter.statuses !== undefined) {
    filtered =
      filter.statuses.length === 1 ? filtered.where('status', '=', filter.statuses[0]) : filtered.where('status', 'in', filter.statuses);
  }
  if (filter.agent !== undefined) filtered = filtered.where('assigned_agent', '=', filter.agent);
  if (filter.project_id !== undefined) filtered = filtered.where('project_id', '=', filter.project_id);
  if (filter.type !== undefined) filtered = filtered.where('type', '=', filter.type);
  if (filter.created_by !== undefined) filtered = filtered.where('created_by', '=', filter.created_by);
  if (filter.since !== undefined) filtered = filtered.where('created_at', '>', filter.since);
  if (filter.updated_since !== undefined) filtered = filtered.where('updated_at', '>', filter.updated_since);
  return filtered;
}
