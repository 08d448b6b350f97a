import type { Kysely, Transaction } from 'kysely';
import type pg from 'pg';
import type { Database, Dialect } from '../shared/db.js';
import type { TransactionRunner } from '../shared/group-commit.js';
import type { Outcome, SortOrder, WorkStatus } from './schemas.js';
import type { DispatchRow, ProjectRow, WorkItemRow, WorkTables } from './tables.js';

export interface WorkFilter {
  status?: WorkStatus;
  agent?: string;
  project_id?: string;
  /** Normalized ISO 8601 UTC; items created strictly after it. */
  since?: string;
  type?: string;
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

/**
 * The SQL of the work-item service, the same on SQLite and PostgreSQL. Methods called inside
 * `transaction` run on that transaction; nothing here knows about the lifecycle rules.
 */
export interface WorkStore {
  transaction<T>(work: (store: WorkStore) => Promise<T>): Promise<T>;

  /** A new item, its first dispatch (if any) and its event, atomically and as cheaply as the store allows. */
  createWorkItem(row: WorkItemRow, dispatch: DispatchRow | null, event: NewEvent): Promise<void>;
  insertWorkItem(row: WorkItemRow): Promise<void>;
  findWorkItem(id: string): Promise<WorkItemRow | undefined>;
  /** Reads an item and holds it against concurrent writers until the transaction ends. */
  lockWorkItem(id: string): Promise<WorkItemRow | undefined>;
  updateWorkItem(id: string, changes: Partial<Omit<WorkItemRow, 'id'>>): Promise<void>;
  deleteWorkItem(id: string): Promise<boolean>;
  listWorkItems(filter: WorkFilter, order: SortOrder, after: PagePosition | null, limit: number): Promise<WorkItemRow[]>;
  countByStatus(filter: Omit<WorkFilter, 'status'>): Promise<Partial<Record<WorkStatus, number>>>;

  insertDispatch(row: DispatchRow): Promise<void>;
  closeOpenDispatch(workItemId: string, outcome: Outcome, at: string): Promise<void>;
  listDispatches(workItemId: string): Promise<DispatchRow[]>;

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
}

export const EVENTS_CHANNEL = 'agentdesk_events';

type Executor = Kysely<WorkTables> | Transaction<WorkTables>;

/**
 * `onEventsCommitted` runs after every commit that appended at least one event, so the event
 * hub learns of new events in one place whichever service wrote them.
 */
export function createWorkStore(database: Database, onEventsCommitted: () => void = () => {}): WorkStore {
  return buildStore(database.kysely as Kysely<WorkTables>, database.dialect, {
    runTransaction: database.transaction,
    pool: database.pool,
    onEventsCommitted,
  });
}

/** How a store reaches the database: directly (top level) or inside an open transaction. */
type StoreScope =
  | { runTransaction: TransactionRunner; pool: pg.Pool | null; onEventsCommitted: () => void }
  /** Inside a transaction: nested calls join it, and appended events are noted for after COMMIT. */
  | { runTransaction: null; pool: null; appended: { events: boolean } };

const ITEM_COLUMNS = [
  'id',
  'type',
  'description',
  'priority',
  'status',
  'assigned_agent',
  'created_by',
  'created_at',
  'updated_at',
  'completed_at',
  'outcome',
  'notes',
  'payload',
  'project_id',
] as const satisfies readonly (keyof WorkItemRow)[];
const DISPATCH_COLUMNS = ['id', 'work_item_id', 'agent', 'dispatched_at', 'completed_at', 'outcome'] as const satisfies readonly (keyof DispatchRow)[];

function placeholders(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
}

// Submitting is the hottest write, so on PostgreSQL it is one named (server-side prepared)
// statement: the item, its first dispatch and its event in data-modifying CTEs, which commit
// together, with the dispatch's foreign key seeing the item inserted beside it.
const ITEM_CTE = `WITH item AS (INSERT INTO work_items (${ITEM_COLUMNS.join(', ')}) VALUES (${placeholders(1, ITEM_COLUMNS.length)}))`;
const EVENT_INSERT = (from: number) => `INSERT INTO events (type, data, created_at) VALUES (${placeholders(from, 3)})`;
const CREATE_ITEM = {
  name: 'agentdesk_create_item',
  text: `${ITEM_CTE} ${EVENT_INSERT(ITEM_COLUMNS.length + 1)}`,
};
const CREATE_DISPATCHED_ITEM = {
  name: 'agentdesk_create_dispatched_item',
  text: `${ITEM_CTE}, dispatch AS (INSERT INTO dispatch_log (${DISPATCH_COLUMNS.join(', ')}) VALUES (${placeholders(
    ITEM_COLUMNS.length + 1,
    DISPATCH_COLUMNS.length,
  )})) ${EVENT_INSERT(ITEM_COLUMNS.length + DISPATCH_COLUMNS.length + 1)}`,
};

function buildStore(db: Executor, dialect: Dialect, scope: StoreScope): WorkStore {
  const store: WorkStore = {
    async transaction(work) {
      if (!scope.runTransaction) return work(store);
      const appended = { events: false };
      const result = await scope.runTransaction((trx) =>
        work(buildStore(trx as Transaction<WorkTables>, dialect, { runTransaction: null, pool: null, appended })),
      );
      if (appended.events) scope.onEventsCommitted();
      return result;
    },

    async createWorkItem(row, dispatch, event) {
      if (scope.pool) {
        const eventValues = [event.type, event.data, event.at];
        const itemValues = ITEM_COLUMNS.map((column) => row[column]);
        await scope.pool.query(
          dispatch
            ? { ...CREATE_DISPATCHED_ITEM, values: [...itemValues, ...DISPATCH_COLUMNS.map((c) => dispatch[c]), ...eventValues] }
            : { ...CREATE_ITEM, values: [...itemValues, ...eventValues] },
        );
        scope.onEventsCommitted();
        return;
      }
      await store.transaction(async (tx) => {
        await tx.insertWorkItem(row);
        if (dispatch) await tx.insertDispatch(dispatch);
        await tx.appendEvent(event.type, event.data, event.at);
      });
    },

    async insertWorkItem(row) {
      await db.insertInto('work_items').values(row).execute();
    },

    findWorkItem(id) {
      return db.selectFrom('work_items').selectAll().where('id', '=', id).executeTakeFirst();
    },

    lockWorkItem(id) {
      const query = db.selectFrom('work_items').selectAll().where('id', '=', id);
      // SQLite has one writer at a time, and our single connection already serializes transactions.
      return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    },

    async updateWorkItem(id, changes) {
      await db.updateTable('work_items').set(changes).where('id', '=', id).execute();
    },

    async deleteWorkItem(id) {
      const result = await db.deleteFrom('work_items').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
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

    async insertDispatch(row) {
      await db.insertInto('dispatch_log').values(row).execute();
    },

    async closeOpenDispatch(workItemId, outcome, at) {
      await db
        .updateTable('dispatch_log')
        .set({ completed_at: at, outcome })
        .where('work_item_id', '=', workItemId)
        .where('completed_at', 'is', null)
        .execute();
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
  };
  return store;
}

// Kysely's builder types are too deep to name here; the filter only adds WHERE clauses.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function applyFilter<Q extends { where: (...args: any[]) => any }>(query: Q, filter: WorkFilter): Q {
  let filtered = query;
  if (filter.status !== undefined) filtered = filtered.where('status', '=', filter.status);
  if (filter.agent !== undefined) filtered = filtered.where('assigned_agent', '=', filter.agent);
  if (filter.project_id !== undefined) filtered = filtered.where('project_id', '=', filter.project_id);
  if (filter.type !== undefined) filtered = filtered.where('type', '=', filter.type);
  if (filter.since !== undefined) filtered = filtered.where('created_at', '>', filter.since);
  return filtered;
}
