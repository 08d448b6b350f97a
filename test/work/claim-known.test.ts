import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import type { Database } from '../../src/shared/db/database.js';
import type { ClaimableNews } from '../../src/work/agent-loop/claimable.js';
import { type ClaimService, createClaimService } from '../../src/work/agent-loop/claims.js';
import { createWorkStore } from '../../src/work/store/index.js';
import type { WorkStore } from '../../src/work/store/port.js';
import type { WorkItemRow } from '../../src/work/store/tables.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// A waiter woken by this process's own new item claims that item by its version, with no read
// of the queue; when the item was taken meanwhile, it reads the queue like any woken waiter and
// waits on. The claim service over a real store on both databases, its reads counted.

describe.each(await storesUnderTest())('claims of items this process wrote, on %s', (kind) => {
  let test: TestDatabase;
  let database: Database;
  let store: WorkStore;
  /** The same database without the commit signal: writes no waiter hears of. */
  let quiet: WorkStore;
  let claims: ClaimService;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    database = await openTestDatabase(test);
    let deliver: (news: ClaimableNews) => void = () => {};
    store = createWorkStore(database, DEPENDENT_NOTES, (news) => deliver(news));
    quiet = createWorkStore(database, DEPENDENT_NOTES);
    claims = createClaimService({ store, database, logger: pino({ level: 'silent' }) });
    deliver = claims.publishClaimable;
  });
  afterAll(async () => {
    await claims.close();
    await database.close();
    await test.destroy();
  });

  const actor = { name: 'tester', role: 'admin' };
  const item = (type: string, priority = 3): WorkItemRow => {
    const at = new Date().toISOString();
    return {
      id: randomUUID(),
      type,
      description: 'd',
      priority,
      status: 'queued',
      assigned_agent: null,
      created_by: 'tester',
      created_at: at,
      updated_at: at,
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
    };
  };
  const create = (on: WorkStore, row: WorkItemRow) =>
    on.createWorkItem(
      row,
      null,
      { type: 'work.created', data: '{}', at: row.created_at },
      { at: row.created_at, actor: 'tester', role: 'admin', action: 'created', changes: '{}' },
    );
  /** Starts a long poll and returns once it waits (wrapped: an async function would await it). */
  const waitFor = async (agent: string, type: string) => {
    const before = claims.waiting();
    const answer = claims.claim({ agent, types: [type], wait_s: 30 }, actor);
    await expect.poll(() => claims.waiting(), { timeout: 20_000 }).toBe(before + 1);
    return { answer };
  };

  it('a new item goes to the waiter it wakes by one guarded write, no read of the queue', async () => {
    const type = `known_${kind}`;
    const waiting = await waitFor('k-1', type);
    const reads = claims.reads();
    const row = item(type);
    await create(store, row);
    const claimed = await waiting.answer;
    expect(claimed).toMatchObject({
      id: row.id,
      status: 'in_progress',
      assigned_agent: 'k-1',
      attempts: 1,
      version: 2,
    });
    expect(claimed!.dispatch_log).toEqual([expect.objectContaining({ agent: 'k-1', completed_at: null })]);
    expect(claims.reads()).toBe(reads);
    expect(await store.findWorkItem(row.id)).toMatchObject({
      status: 'in_progress',
      assigned_agent: 'k-1',
      version: 2,
    });
  });

  it('several new items at once: the most urgent to the oldest waiter', async () => {
    const type = `known_order_${kind}`;
    const older = await waitFor('k-old', type);
    const newer = await waitFor('k-new', type);
    const later = item(type, 5);
    const urgent = { ...item(type, 1), created_at: later.created_at, updated_at: later.updated_at };
    await store.transaction(async (tx) => {
      await tx.createWorkItems(
        [later, urgent].map((row) => ({
          row,
          dispatch: null,
          event: { type: 'work.created', data: '{}', at: row.created_at },
          history: { at: row.created_at, actor: 'tester', role: 'admin', action: 'created', changes: '{}' },
        })),
      );
    });
    expect((await older.answer)!.id).toBe(urgent.id);
    expect((await newer.answer)!.id).toBe(later.id);
  });

  it('an item taken before the woken waiter could write: it reads the queue, finds nothing, waits on', async () => {
    const type = `known_taken_${kind}`;
    const waiting = await waitFor('k-2', type);
    // Written where no waiter hears of it, and claimed by another agent at once.
    const row = item(type);
    await create(quiet, row);
    expect((await claims.claim({ agent: 'k-fast', types: [type] }, actor))!.id).toBe(row.id);
    const reads = claims.reads();
    // The news of it arrives late, with the row as it was written.
    claims.publishClaimable({
      ready: [{ type, project_id: null, agent: null, count: 1, known: [{ row, dispatches: [] }] }],
      due_at: null,
    });
    await expect.poll(() => claims.reads(), { timeout: 20_000 }).toBe(reads + 1);
    expect(claims.waiting()).toBeGreaterThanOrEqual(1);
    // Still waiting: the next item is its.
    const next = item(type);
    await create(store, next);
    expect((await waiting.answer)!.id).toBe(next.id);
    expect((await store.findWorkItem(row.id))!.assigned_agent).toBe('k-fast');
  });
});
