import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createArchiver,
  createRetentionStore,
  dayFile,
  archiveFiles,
  restoreArchive,
  type Retention,
} from '../../src/retention/index.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { ConfigError } from '../../src/shared/config/config-error.js';
import { type TestApp, captureLogs, startWorkApp } from '../support/apps.js';
import { createTestClock } from '../support/clock.js';
import { openTestDatabase, storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { parsePrometheus } from '../support/prometheus.js';

// RETENTION_DAYS on both stores with the service's clock: what an archiving pass removes and what
// it leaves (open work, recent items, parents of open work, what others depend on), the day
// file's lines, the counts in /health and /metrics, and a restore that gives back the same items.

const DAY_MS = 86_400_000;

function linesOf(file: Buffer): any[] {
  return gunzipSync(file)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

it('RETENTION_DAYS without ARCHIVE_DIR is a configuration error, not items removed with nowhere to go', () => {
  expect(() => loadConfig({ RETENTION_DAYS: '30' })).toThrow(ConfigError);
  expect(() => loadConfig({ RETENTION_DAYS: '30' })).toThrow(/ARCHIVE_DIR/);
  expect(() => loadConfig({ RETENTION_DAYS: '0', ARCHIVE_DIR: '/tmp' })).toThrow(/RETENTION_DAYS/);
  expect(loadConfig({}).retention).toEqual({ days: null, archiveDir: null });
});

describe.each(await storesUnderTest())('retention on %s', (kind) => {
  const clock = createTestClock();
  let t: TestApp;
  let dir: string;
  let retention!: Retention;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentdesk-archive-'));
    t = await startWorkApp(
      kind,
      { RETENTION_DAYS: '2', ARCHIVE_DIR: dir },
      { now: clock.now, onRetention: (running) => (retention = running) },
    );
  });
  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const submit = async (body: Record<string, unknown>) => {
    const made = await call(t.app, 'POST', '/work', { type: 'kept', description: 'an item', ...body });
    expect(made.status, made.text).toBe(201);
    return made.body as { id: string };
  };
  /** Claimed by `ann` and completed, so it has a dispatch entry and three history rows. */
  const complete = async (id: string) => {
    const claimed = await call(t.app, 'POST', '/work/claim', { agent: 'ann', types: [`only-${id}`] });
    expect(claimed.status, claimed.text).toBe(200);
    const done = await call(t.app, 'PATCH', `/work/${id}`, { status: 'completed', outcome: 'success', notes: 'done' });
    expect(done.status, done.text).toBe(200);
  };
  const finished = async (body: Record<string, unknown> = {}) => {
    const item = await submit(body);
    await call(t.app, 'PATCH', `/work/${item.id}`, { type: `only-${item.id}` });
    await complete(item.id);
    return item;
  };
  const status = async (id: string) => (await call(t.app, 'GET', `/work/${id}`)).status;
  const whole = async (id: string) => ({
    item: (await call(t.app, 'GET', `/work/${id}`)).body,
    history: (await call(t.app, 'GET', `/work/${id}/history`)).body,
    comments: (await call(t.app, 'GET', `/work/${id}/comments`)).body,
    questions: (await call(t.app, 'GET', `/work/${id}/questions`)).body,
  });

  it('archives what nothing holds, leaves the rest, and a restore gives back the same items', async () => {
    const done = await finished({ description: 'reconcile the zephyrine invoices', payload: { ref: 'INV-7731' } });
    const said = await call(t.app, 'POST', `/work/${done.id}/comments`, {
      body: 'filed under quartzite',
      kind: 'note',
    });
    expect(said.status, said.text).toBe(201);
    const cancelled = await submit({ description: 'never mind' });
    expect(
      (await call(t.app, 'PATCH', `/work/${cancelled.id}`, { status: 'cancelled', outcome: 'cancelled' })).status,
    ).toBe(200);
    // A target and its dependent, both completed: the dependent goes first, then the target.
    const target = await finished({ description: 'the target' });
    const dependent = await finished({ description: 'the dependent', depends_on: [target.id] });
    // A finished plan: the step first, then its parent.
    const plan = await finished({ description: 'a finished plan' });
    const step = await finished({ description: 'its step', parent_id: plan.id });
    // Held: open work, and a finished child of an open parent.
    const open = await submit({ description: 'still queued' });
    const openParent = await submit({ description: 'an open parent' });
    const child = await finished({ description: 'child of open work', parent_id: openParent.id });
    const archived = [done, cancelled, target, dependent, plan, step].map((item) => item.id);
    const before = new Map(await Promise.all(archived.map(async (id) => [id, await whole(id)] as const)));
    expect(before.get(dependent.id)!.item.depends_on).toEqual([target.id]);
    expect(before.get(done.id)!.comments).toHaveLength(1);

    // A day on: nothing is two days old yet.
    clock.advance(DAY_MS);
    expect(await retention.pass()).toEqual({ ran: true, removed: 0, bytes: 0 });
    clock.advance(2 * DAY_MS);
    const recent = await finished({ description: 'finished just now' });
    const pass = await retention.pass();
    expect(pass).toMatchObject({ ran: true, removed: archived.length });
    for (const id of archived) expect(await status(id), id).toBe(404);
    for (const { id } of [open, openParent, child, recent]) expect(await status(id), id).toBe(200);

    const file = dayFile(dir, clock.now());
    const lines = linesOf(await readFile(file));
    expect(lines.map((line) => line.item.id).sort()).toEqual([...archived].sort());
    // A dependent before its target, a step before its plan: what holds an item goes first.
    const order = lines.map((line) => line.item.id);
    expect(order.indexOf(dependent.id)).toBeLessThan(order.indexOf(target.id));
    expect(order.indexOf(step.id)).toBeLessThan(order.indexOf(plan.id));
    const line = lines.find((entry) => entry.item.id === done.id);
    expect(line).toMatchObject({
      format: 1,
      archived_at: clock.now().toISOString(),
      item: { id: done.id, status: 'completed', notes: 'done', payload: { ref: 'INV-7731' }, comment_count: 1 },
      comments: [{ body: 'filed under quartzite', kind: 'note' }],
      questions: [],
    });
    expect(line.history.map((entry: any) => entry.action)).toEqual(
      before.get(done.id)!.history.map((e: any) => e.action),
    );
    expect(line.item.dispatch_log).toHaveLength(1);
    const bytes = (await stat(file)).size;
    expect(pass.bytes).toBe(bytes);

    const health = await call(t.app, 'GET', '/health');
    expect(health.body.retention).toEqual({
      oldest_final_at: expect.any(String),
      items_removed: archived.length,
      archive_bytes: bytes,
    });
    const metrics = parsePrometheus((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    expect(metrics.value('agentdesk_retention_items_removed_total')).toBe(archived.length);
    expect(metrics.value('agentdesk_archive_bytes_total')).toBe(bytes);
    // The child of open work is the oldest final item left: three days old.
    expect(metrics.value('agentdesk_oldest_final_item_age_seconds')).toBeGreaterThanOrEqual(3 * 86_400 - 60);
    expect((await call(t.app, 'GET', '/search?q=quartzite')).body.items ?? []).toHaveLength(0);

    // Restored: the same item, history, comments and questions, its links made again.
    const store = createRetentionStore(t.database);
    expect(await restoreArchive(store, file)).toEqual({ restored: archived.length, skipped: 0, links: 2 });
    for (const id of archived) {
      const after = await whole(id);
      expect({ ...after, history: after.history.map(({ id: _id, ...e }: any) => e) }, id).toEqual({
        ...before.get(id)!,
        history: before.get(id)!.history.map(({ id: _id, ...e }: any) => e),
      });
    }
    const found = await call(t.app, 'GET', '/search?q=quartzite');
    expect(found.status, found.text).toBe(200);
    expect(JSON.stringify(found.body)).toContain(done.id);
    // Again: every id exists, nothing is written twice.
    expect(await restoreArchive(store, file)).toEqual({ restored: 0, skipped: archived.length, links: 0 });
  });

  it('two instances archiving at once keep each item exactly once', async () => {
    const made = await Promise.all(Array.from({ length: 60 }, (_, n) => submit({ description: `pair ${n}` })));
    for (const item of made)
      expect(
        (await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'cancelled', outcome: 'cancelled' })).status,
      ).toBe(200);
    clock.advance(3 * DAY_MS);
    const other = await openTestDatabase(t.testDatabase);
    const dirs = [await mkdtemp(join(tmpdir(), 'agentdesk-a-')), await mkdtemp(join(tmpdir(), 'agentdesk-b-'))];
    try {
      const instances = [t.database, other].map((database, n) =>
        createArchiver({
          store: createRetentionStore(database),
          target: { files: archiveFiles(dirs[n]!) },
          now: clock.now,
          logger: captureLogs('warn').logger,
          batchSize: 7,
        }),
      );
      const before = new Date(clock.now().getTime() - DAY_MS).toISOString();
      for (let round = 0; round < 3; round += 1) {
        await Promise.all(instances.map((archiver) => archiver.archiveBefore(before)));
      }
      const ids: string[] = [];
      for (const folder of dirs) {
        const file = dayFile(folder, clock.now());
        const present = await stat(file).then(
          () => true,
          () => false,
        );
        if (present) ids.push(...linesOf(await readFile(file)).map((line) => line.item.id));
      }
      const wanted = made.map((item) => item.id);
      expect(ids.filter((id) => wanted.includes(id)).sort()).toEqual([...wanted].sort());
      expect(new Set(ids).size).toBe(ids.length);
      for (const { id } of made.slice(0, 5)) expect(await status(id)).toBe(404);
    } finally {
      await other.close();
      for (const folder of dirs) await rm(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
