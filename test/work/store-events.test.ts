import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db.js';
import { type WorkStore, createWorkStore } from '../../src/work/store.js';
import type { WorkItemRow } from '../../src/work/tables.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../helpers/databases.js';

// The store tells the event hub about new events after they commit, and only then.
describe.each(await storesUnderTest())('store event notification on %s', (kind) => {
  let test: TestDatabase;
  let database: Database;
  let store: WorkStore;
  let notified = 0;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    database = await openTestDatabase(test);
    store = createWorkStore(database, () => {
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
      store.createWorkItem({ ...item(), project_id: randomUUID() }, null, { type: 'work.created', data: '{}', at: at() }, history()),
    ).rejects.toBeDefined();
    expect(notified).toBe(0);
  });
});
