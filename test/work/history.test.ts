import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { createJumpingClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { connectSse } from '../support/sse.js';

// The audit trail: every change to an item, who made it (actor and role) and what changed,
// oldest first, through HTTP on both stores, with tokens so the roles are real.

describe.each(await storesUnderTest())('GET /work/{id}/history on %s', (kind) => {
  let t: TestApp;
  let agent: Record<string, string>;
  let intake: Record<string, string>;
  const admin = bearer(ADMIN_SECRET);
  // Real time, so the lease sweeper's timer runs; a lease runs out by a jump instead of a sleep.
  const clock = createJumpingClock();
  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV }, { now: clock.now });
    agent = bearer((await mintToken(t.app, { role: 'agent', name: 'ann-token', agent: 'ann' })).token);
    intake = bearer((await mintToken(t.app, { role: 'intake', name: 'mailbot' })).token);
  });
  afterAll(() => t.close());

  it('lists creation, claim, heartbeat, moves, edits and lease expiry with actor and role, oldest first', async () => {
    const created = await call(
      t.app,
      'POST',
      '/work',
      { type: 'audited', description: 'watch me', retry_delay_s: 0 },
      intake,
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    const claimed = await call(t.app, 'POST', '/work/claim', { agent: 'ann', types: ['audited'], lease_s: 60 }, agent);
    expect(claimed.status).toBe(200);
    expect((await call(t.app, 'POST', `/work/${id}/heartbeat`, { agent: 'ann', lease_s: 1 }, agent)).status).toBe(200);
    expect((await call(t.app, 'PATCH', `/work/${id}`, { notes: 'looking into it' }, agent)).status).toBe(200);
    expect((await call(t.app, 'PATCH', `/work/${id}`, { priority: 1 }, admin)).status).toBe(200);
    // The heartbeat set a one-second lease: once it has run out, the sweep takes the item back.
    clock.advance(1_000);
    await expect
      .poll(async () => (await call(t.app, 'GET', `/work/${id}`, undefined, admin)).body.status, { timeout: 5_000 })
      .toBe('queued');

    const history = await call(t.app, 'GET', `/work/${id}/history`, undefined, agent);
    expect(history.status).toBe(200);
    const entries = history.body;
    expect(entries.map((entry: any) => [entry.action, entry.actor, entry.role])).toEqual([
      ['created', 'mailbot', 'intake'],
      ['claimed', 'ann', 'agent'],
      ['heartbeat', 'ann', 'agent'],
      ['edited', 'ann', 'agent'],
      ['edited', 'admin', 'admin'],
      ['lease_expired', 'agentdesk', 'system'],
    ]);
    const [createdEntry, claimEntry, beat, notes, priority, expired] = entries;
    expect(createdEntry.changes).toEqual({ status: { from: null, to: 'queued' } });
    expect(claimEntry.changes).toMatchObject({
      status: { from: 'queued', to: 'in_progress' },
      assigned_agent: { from: null, to: 'ann' },
      attempts: { from: 0, to: 1 },
    });
    expect(claimEntry.changes.lease_expires_at.to).toBe(claimed.body.lease_expires_at);
    expect(beat.changes.lease_expires_at.from).toBe(claimed.body.lease_expires_at);
    expect(notes.changes.notes).toEqual({ from: null, to: 'looking into it' });
    expect(priority.changes.priority).toEqual({ from: 3, to: 1 });
    expect(expired.changes).toMatchObject({
      status: { from: 'in_progress', to: 'queued' },
      assigned_agent: { from: 'ann', to: null },
    });
    const times = entries.map((entry: any) => Date.parse(entry.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(entries.every((entry: any) => entry.work_item_id === id)).toBe(true);
  });

  it('a move through PATCH is named by its move; a payload edit is marked, not copied', async () => {
    const { body: item } = await call(
      t.app,
      'POST',
      '/work',
      { type: 'audited', description: 'd', agent: 'ann', payload: { a: 1 } },
      admin,
    );
    await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'in_progress' }, agent);
    await call(t.app, 'PATCH', `/work/${item.id}`, { payload: { a: 2 } }, agent);
    await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'completed', outcome: 'success' }, agent);
    const { body: entries } = await call(t.app, 'GET', `/work/${item.id}/history`, undefined, admin);
    expect(entries.map((entry: any) => entry.action)).toEqual(['created', 'pick_up', 'edited', 'complete']);
    expect(entries[0].changes.assigned_agent).toEqual({ from: null, to: 'ann' });
    expect(entries[2].changes).toEqual({ payload: { edited: true } });
    expect(entries[3].changes).toMatchObject({
      status: { from: 'in_progress', to: 'completed' },
      outcome: { from: null, to: 'success' },
    });
  });

  it('a PATCH of depends_on or parent_id is recorded as its from and to; links asked for as they are change nothing', async () => {
    const submit = async (body: Record<string, unknown> = {}) =>
      (await call(t.app, 'POST', '/work', { type: 'audited_links', description: 'a step', ...body }, admin)).body as {
        id: string;
        version: number;
      };
    const [a, b, c, parent] = [await submit(), await submit(), await submit(), await submit()];
    const item = await submit({ depends_on: [a.id] });
    const patch = async (body: Record<string, unknown>) => {
      const response = await call(t.app, 'PATCH', `/work/${item.id}`, body, admin);
      expect(response.status, response.text).toBe(200);
      return response.body as { version: number };
    };
    const sorted = (...ids: string[]) => ids.sort();
    await patch({ depends_on: [b.id, a.id] });
    const moved = await patch({ depends_on: [c.id], parent_id: parent.id });
    const unchanged = await patch({ depends_on: [c.id], parent_id: parent.id });
    expect(unchanged.version).toBe(moved.version);
    await patch({ depends_on: [b.id] });
    await patch({ depends_on: [], parent_id: null, priority: 1 });

    const { body: entries } = await call(t.app, 'GET', `/work/${item.id}/history`, undefined, agent);
    expect(entries.map((entry: any) => [entry.action, entry.actor])).toEqual([
      ['created', 'admin'],
      ['edited', 'admin'],
      ['edited', 'admin'],
      ['edited', 'admin'],
      ['edited', 'admin'],
    ]);
    const [, gained, movedEntry, swapped, cleared] = entries;
    expect(gained.changes).toEqual({
      depends_on: { from: [a.id], to: sorted(a.id, b.id) },
      waiting_on: { from: 1, to: 2 },
    });
    expect(movedEntry.changes).toEqual({
      depends_on: { from: sorted(a.id, b.id), to: [c.id] },
      waiting_on: { from: 2, to: 1 },
      parent_id: { from: null, to: parent.id },
    });
    // One dependency for another, both queued: the count stays 1, only the list tells.
    expect(swapped.changes).toEqual({ depends_on: { from: [c.id], to: [b.id] } });
    expect(cleared.changes).toEqual({
      depends_on: { from: [b.id], to: [] },
      waiting_on: { from: 1, to: 0 },
      parent_id: { from: parent.id, to: null },
      priority: { from: 3, to: 1 },
    });
  });

  it('an unknown item is a 404; the history goes with a deleted item', async () => {
    expect(
      (await call(t.app, 'GET', '/work/00000000-0000-4000-8000-000000000000/history', undefined, admin)).status,
    ).toBe(404);
    const { body: item } = await call(t.app, 'POST', '/work', { type: 'audited', description: 'short-lived' }, admin);
    expect((await call(t.app, 'DELETE', `/work/${item.id}`, undefined, admin)).status).toBe(204);
    expect((await call(t.app, 'GET', `/work/${item.id}/history`, undefined, admin)).status).toBe(404);
  });

  it('events on /events carry the actor', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const stream = await connectSse(`${base}/events`, admin);
    try {
      const { body: item } = await call(t.app, 'POST', '/work', { type: 'audited_sse', description: 'd' }, intake);
      await call(t.app, 'POST', '/work/claim', { agent: 'ann', types: ['audited_sse'] }, agent);
      const mine = (events: { event?: string; data: string }[]) =>
        events
          .filter((event) => event.data.includes(item.id))
          .map((event) => ({ ...JSON.parse(event.data), kind: event.event }));
      const events = mine(await stream.waitFor((all) => mine(all).length >= 2));
      expect(events[0]).toMatchObject({ kind: 'work.created', actor: { name: 'mailbot', role: 'intake' } });
      expect(events[1]).toMatchObject({
        kind: 'work.updated',
        status: 'in_progress',
        actor: { name: 'ann', role: 'agent' },
      });
    } finally {
      stream.close();
    }
  });
});
