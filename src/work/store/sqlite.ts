import { CompiledQuery, type Insertable, type RawBuilder, sql } from 'kysely';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import { eventData } from '../items/view.js';
import type { WorkItemRow, WorkTables } from './tables.js';
import type { DependentNotes, DependentsEffect } from './dependencies-port.js';
import type { ClaimCandidates, ClaimQuery, ItemWithDispatches, ReleasedItem, WorkStatements } from './port.js';
import { crossDialectStatements } from './cross-dialect.js';

// The work store on SQLite: the statements of port.ts (cross-dialect.ts's, and the hot paths
// written here) on the connection or transaction given. SQLite has one writer, so nothing here
// locks; transactions and their group commit are the decorator's business (transactional.ts).

/** Items per statement when many are created at once: each item row has 21 parameters. */
const CREATE_SLICE = 40;

export function sqliteStatements(db: DatabaseHandle, notes: DependentNotes): WorkStatements {
  const crossDialect = crossDialectStatements(db);
  const statements: WorkStatements = {
    ...crossDialect,
    async createWorkItems(items) {
      for (let start = 0; start < items.length; start += CREATE_SLICE) {
        const slice = items.slice(start, start + CREATE_SLICE);
        await insertRows(
          db,
          'work_items',
          slice.map(({ row }) => row),
        );
        await insertRows(
          db,
          'work_history',
          slice.map(({ row, history }) => ({ ...history, work_item_id: row.id })),
        );
        const dispatches = slice.flatMap(({ dispatch }) => (dispatch ? [dispatch] : []));
        if (dispatches.length > 0) await insertRows(db, 'dispatch_log', dispatches);
        await insertRows(
          db,
          'events',
          slice.map(({ event }) => ({ type: event.type, data: event.data, created_at: event.at })),
        );
      }
    },

    async findManyWithDispatches(ids) {
      const found: (ItemWithDispatches | undefined)[] = [];
      for (const id of ids) {
        const row = await crossDialect.findWorkItem(id);
        found.push(row && (await withLog(row)));
      }
      return found;
    },

    async applyChanges(changes) {
      const applied: boolean[] = [];
      for (const change of changes) {
        let update = db
          .updateTable('work_items')
          .set(change.set)
          .where('id', '=', change.id)
          .where('version', '=', change.from_version);
        if (change.from_link_version !== undefined)
          update = update.where('link_version', '=', change.from_link_version);
        const updated = await update.executeTakeFirst();
        if (Number(updated.numUpdatedRows) !== 1) {
          applied.push(false);
          continue;
        }
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
        await db
          .insertInto('work_history')
          .values({ ...change.history, work_item_id: change.id })
          .execute();
        await crossDialect.appendEvent(change.event.type, change.event.data, change.event.at);
        if (change.dependents) change.released = await writeDependents(change.id, change.dependents, change.event.at);
        applied.push(true);
      }
      return applied;
    },

    async claimCandidates(query, agents) {
      const own: (ItemWithDispatches | null)[] = [];
      for (const agent of agents) {
        const { rows } = await sql<WorkItemRow>`SELECT * FROM work_items INDEXED BY work_items_agent_status
          WHERE assigned_agent = ${agent} AND status = 'dispatched' AND waiting_on = 0${filters(query)}
          ORDER BY created_at, id LIMIT 1`.execute(db);
        own.push(rows[0] ? await withLog(rows[0]) : null);
      }
      const wanting = own.filter((item) => item === null).length;
      const queued: ItemWithDispatches[] = [];
      if (wanting > 0) {
        const { rows } = await queueHead(query, wanting).execute(db);
        for (const row of rows) queued.push(await withLog(row));
      }
      return { own, queued } satisfies ClaimCandidates;
    },

    async nextRunAfter(query) {
      const { rows } = await sql<{
        next: string | null;
      }>`SELECT min(run_after) AS next FROM work_items INDEXED BY work_items_due
        WHERE status = 'queued' AND waiting_on = 0 AND run_after > ${query.now}${filters(query)}`.execute(db);
      return rows[0]?.next ?? null;
    },

    // The planner takes work_items_status_queue (every queued item) over the partial index of open
    // containers, which it cannot size; bound values would not let it prove the index's condition.
    async plansToSettle(hold, limit) {
      const { rows } = await sql<{ id: string }>`SELECT p.id FROM work_items p INDEXED BY work_items_open_containers
        WHERE p.container = 1 AND p.status = 'queued' AND p.waiting_on = ${hold}
          AND NOT EXISTS (SELECT 1 FROM work_items c WHERE c.parent_id = p.id AND c.status <> 'completed')
          AND EXISTS (SELECT 1 FROM work_items c WHERE c.parent_id = p.id)
        LIMIT ${limit}`.execute(db);
      return rows.map((row) => row.id);
    },

    // SQLite's one writer already serializes transactions: a read holds the project.
    lockProject(id) {
      return crossDialect.findProject(id);
    },

    // One writer: no other request can hold the key while this transaction runs.
    async tryLockIdempotencyKey() {
      return true;
    },

    // One writer: the transaction that checks a link is the only one writing.
    async lockGraph() {},
  };

  /**
   * What an item's end does to its dependents (dependencies-port.ts), each with its event; answers
   * the dependents it released (waiting on nothing now, queued) for the commit's signal.
   */
  async function writeDependents(id: string, effect: DependentsEffect, at: string): Promise<ReleasedItem[]> {
    const dependents = sql`id IN (SELECT item_id FROM work_dependencies WHERE depends_on_id = ${id})`;
    const { rows } =
      effect.kind === 'release'
        ? await sql<WorkItemRow>`UPDATE work_items SET waiting_on = waiting_on - 1, version = version + 1, updated_at = ${at}
            WHERE ${dependents} RETURNING *`.execute(db)
        : await sql<WorkItemRow>`UPDATE work_items SET version = version + 1, updated_at = ${at}, comment_count = comment_count + 1
            WHERE ${dependents} AND status NOT IN (${sql.join(effect.unless)}) RETURNING *`.execute(db);
    for (const row of rows) {
      // The note joins the dependent's timeline as a comment by the desk (the conversation's).
      if (effect.kind === 'note') {
        const { name, role } = effect.actor;
        await notes.insert(db, { work_item_id: row.id, author: name, role, body: effect.note, created_at: at });
      }
      await crossDialect.appendEvent(effect.event, eventData(row, effect.actor), at);
    }
    return effect.kind === 'release' ? rows.filter((row) => row.waiting_on === 0 && row.status === 'queued') : [];
  }

  async function withLog(row: WorkItemRow): Promise<ItemWithDispatches> {
    return { row, dispatches: await crossDialect.listDispatches(row.id) };
  }

  return statements;
}

const insertTexts = new Map<string, string>();

/**
 * `INSERT INTO table (columns) VALUES (…), …` of `rows`, its text kept by table, columns and row
 * count: Kysely builds and compiles an insert anew at every call, which under a flood of submits
 * cost a noticeable share of the event loop to make the same few texts. Rows that do not all
 * give the same columns (Kysely fills the gaps) go through Kysely.
 */
function insertRows<T extends keyof WorkTables & string>(
  db: DatabaseHandle,
  table: T,
  rows: readonly Insertable<WorkTables[T]>[],
): Promise<unknown> {
  const first = rows[0] as Record<string, unknown>;
  const columns = Object.keys(first).filter((column) => first[column] !== undefined);
  const parameters: unknown[] = [];
  for (const row of rows as readonly Record<string, unknown>[]) {
    let given = 0;
    for (const column in row) if (row[column] !== undefined) given += 1;
    if (given !== columns.length)
      return db
        .insertInto(table)
        .values(rows as never)
        .execute();
    for (const column of columns) {
      const value = row[column];
      if (value === undefined)
        return db
          .insertInto(table)
          .values(rows as never)
          .execute();
      parameters.push(value);
    }
  }
  const key = `${table}(${columns.join(',')})x${rows.length}`;
  let text = insertTexts.get(key);
  if (text === undefined) {
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    text = `insert into "${table}" (${columns.map((column) => `"${column.replaceAll('"', '""')}"`).join(', ')}) values ${Array<string>(rows.length).fill(tuple).join(', ')}`;
    if (insertTexts.size >= 256) insertTexts.clear();
    insertTexts.set(key, text);
  }
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

/** The claim's type and project filters, as extra WHERE terms. */
function filters(query: Pick<ClaimQuery, 'types' | 'project_id'>, withTypes = true): RawBuilder<unknown> {
  const terms: RawBuilder<unknown>[] = [];
  if (withTypes && query.types) terms.push(sql` AND type IN (${sql.join(query.types)})`);
  if (query.project_id) terms.push(sql` AND project_id = ${query.project_id}`);
  return sql.join(terms, sql``);
}

// waiting_on = 0 is in every claimable index's predicate (migration 013): an item that waits
// on a dependency is not in them at all.
const DUE = (now: string) => sql`status = 'queued' AND waiting_on = 0 AND (run_after IS NULL OR run_after <= ${now})`;

/**
 * The first `limit` claimable items in queue order, each shape through its own partial index.
 * With types, one index walk per type (each in queue order, at most `limit` rows), merged: an
 * IN over the type index would read every queued item of those types to sort them.
 * The claim's reads name their index (INDEXED BY): with tens of thousands of items queued the
 * planner walked work_items_status_queue and checked the type row by row, whatever ANALYZE said.
 * Named, the plan is right by construction, and a query the index cannot serve fails loudly
 * instead of scanning (test/shared/hot-path-plans.test.ts).
 */
function queueHead(query: ClaimQuery, limit: number): RawBuilder<WorkItemRow> {
  if (query.types) {
    const perType = [...new Set(query.types)].map(
      (type) => sql`SELECT * FROM (SELECT * FROM work_items INDEXED BY work_items_claimable_type
        WHERE type = ${type} AND ${DUE(query.now)}${filters(query, false)}
        ORDER BY priority, created_at, id LIMIT ${limit})`,
    );
    return sql<WorkItemRow>`SELECT * FROM (${sql.join(perType, sql` UNION ALL `)}) ORDER BY priority, created_at, id LIMIT ${limit}`;
  }
  const index = query.project_id ? sql`work_items_claimable_project` : sql`work_items_claimable`;
  return sql<WorkItemRow>`SELECT * FROM work_items INDEXED BY ${index}
    WHERE ${DUE(query.now)}${filters(query)} ORDER BY priority, created_at, id LIMIT ${limit}`;
}
