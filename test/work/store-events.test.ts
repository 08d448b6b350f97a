import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import type { Database } from '../../src/shared/db/database.js';
import type { WorkStore } from '../../src/work/store/port.js';
import { createWorkStore } from '../../src/work/store/index.js';
import type { WorkItemRow } from '../../src/work/store/tables.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// The store tells the event hub about new events after they commit, and only then.
describe.each(await storesUnderTest())('store event notification on %s', (kind) => {
  let test: TestDatabase;
  let database: Database;
  let store: WorkStore;
  let notified = 0;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    database = await openTestDatabase(test);
    store = createWorkStore(database, DEPENDENT_NOTES, () => {
      notified += 1;
    });
  });
  afterAll(async () => {
    await database.close();
    await test.destroy();
  });

  const at = () => new Date().toISOString();
  const history = () => ({ at: at(), actor: 'tester', role: 'admin', action: 'created', changes: '{}' });
  const item = (): WorkItemRow => ({
    id: randomUUID(),
    type: 't',
    description: 'd',
    priority: 3,
    status: 'queued',
    assigned_agent: null,
    created_by: 'anonymous',
    created_at: at(),
    updated_at: at(),
    completed_at: null,
    outcome: null,
    notes: null,
    payload: null,
    project_id: null,
    version: 1,
    attempts: 0,
    max_attempts: 3,
    retry_delay_s: 30,
    run_after: null,
    lease_expires_at: null,
    lease_s: null,
    comment_count: 0,
    review_required: null,
    parent_id: null,
    waiting_on: 0,
    link_version: 0,
    container: 0,
    watchers: null,
  });

  it('once per committed transaction that appended events', async () => {
    notified = 0;
    await store.transaction(async (tx) => {
      await tx.appendEvent('work.updated', '{}', at());
      await tx.appendEvent('work.updated', '{}', at());
    });
    expect(notified).toBe(1);
    await store.createWorkItem(item(), null, { type: 'work.created', data: '{}', at: at() }, history());
    expect(notified).toBe(2);
  });

  it('never for a transaction without events, nor for one that rolled back', async () => {
    notified = 0;
    await store.transaction(async (tx) => tx.findWorkItem(randomUUID()));
    await expect(
      store.transaction(async (tx) => {
        await tx.appendEvent('work.updated', '{}', at());
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await expect(
      store.createWorkItem(
        { ...item(), project_id: randomUUID() },
        null,
        { type: 'work.created', data: '{}', at: at() },
        history(),
      ),
    ).rejects.toBeDefined();
    expect(notified).toBe(0);
  });

  it('creates many items at once (mail intake) with their dispatch, history and event, inside a transaction', async () => {
    notified = 0;
    const first = item();
    const second = { ...item(), status: 'dispatched' as const, assigned_agent: 'agent-1' };
    const dispatch = {
      id: randomUUID(),
      work_item_id: second.id,
      agent: 'agent-1',
      dispatched_at: at(),
      completed_at: null,
      outcome: null,
      reason: null,
    };
    const many = Array.from({ length: 45 }, () => item());
    await store.transaction(async (tx) => {
      await tx.createWorkItems([
        { row: first, dispatch: null, event: { type: 'work.created', data: '{}', at: at() }, history: history() },
        { row: second, dispatch, event: { type: 'work.created', data: '{}', at: at() }, history: history() },
        // More than one SQLite slice.
        ...many.map((row) => ({
          row,
          dispatch: null,
          event: { type: 'work.created', data: '{}', at: at() },
          history: history(),
        })),
      ]);
    });
    expect(notified).toBe(1);
    expect((await store.findWorkItem(first.id))?.status).toBe('queued');
    expect((await store.findWorkItem(many.at(-1)!.id))?.description).toBe('d');
    expect((await store.listDispatches(second.id)).map((entry) => entry.agent)).toEqual(['agent-1']);
    expect((await store.listHistory(second.id)).map((entry) => entry.action)).toEqual(['created']);
  });

  // SQLite's inserts reuse one SQL text per table, columns and row count: rows that leave
  // columns out get the columns' defaults, and the next call with every column gets its own text.
  it.runIf(kind === 'sqlite')('creates items whose rows leave columns to their defaults', async () => {
    const partial = () => {
      const { comment_count: _count, waiting_on: _waiting, ...row } = { ...item(), review_required: undefined };
      return row as unknown as WorkItemRow;
    };
    const created = (row: WorkItemRow) => ({
      row,
      dispatch: null,
      event: { type: 'work.created', data: '{}', at: at() },
      history: history(),
    });
    const [first, second, full] = [partial(), partial(), { ...item(), comment_count: 2 }];
    await store.transaction(async (tx) => tx.createWorkItems([created(first), created(second)]));
    await store.transaction(async (tx) => tx.createWorkItems([created(full)]));
    for (const row of [first, second]) {
      expect(await store.findWorkItem(row.id)).toMatchObject({
        id: row.id,
        comment_count: 0,
        waiting_on: 0,
        review_required: null,
      });
    }
    expect(await store.findWorkItem(full.id)).toMatchObject({ id: full.id, comment_count: 2 });
  });

  it('creates none of many items when the transaction rolls back', async () => {
    notified = 0;
    const row = item();
    await expect(
      store.transaction(async (tx) => {
        await tx.createWorkItems([
          { row, dispatch: null, event: { type: 'work.created', data: '{}', at: at() }, history: history() },
        ]);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await store.findWorkItem(row.id)).toBeUndefined();
    expect(notified).toBe(0);
  });
});
