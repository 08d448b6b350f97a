import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../src/shared/db/ids.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { UUID_RE, call } from '../support/http.js';

// Dispatch entries get version 7 UUIDs: their keys follow the time they were
// written, so inserts land on the primary key's newest pages. Work items keep version 4: the web
// UI tells them apart by their first eight hex digits, which version 7 ids of a minute share.

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const timeOf = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);

describe('timeOrderedId', () => {
  it('is a version 7 UUID carrying the time in milliseconds', () => {
    const at = '2026-11-27T05:30:00.123Z';
    const id = timeOrderedId(at);
    expect(id).toMatch(V7);
    expect(timeOf(id)).toBe(Date.parse(at));
    expect(timeOf(timeOrderedId(0))).toBe(0);
  });

  it('sorts by time as text, and differs within one millisecond', () => {
    const times = [
      Date.parse('2001-01-01T00:00:00Z'),
      Date.parse('2026-11-27T05:30:00Z'),
      Date.parse('2026-11-27T05:30:00.001Z'),
    ];
    const ids = times.map((t) => timeOrderedId(t));
    expect([...ids].sort()).toEqual(ids);
    const same = new Set(Array.from({ length: 1000 }, () => timeOrderedId(times[1]!)));
    expect(same.size).toBe(1000);
  });
});

describe.each(await storesUnderTest())('ids of new rows on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t?.close());

  it('a dispatch entry carries its own time; items made together differ in their first eight digits', async () => {
    const item = (await call(t.app, 'POST', '/work', { type: 'ids', description: 'd', agent: 'ada' })).body;
    expect(item.id).toMatch(UUID_RE);
    expect(item.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    const others = await Promise.all(
      Array.from({ length: 20 }, () => call(t.app, 'POST', '/work', { type: 'ids', description: 'd' })),
    );
    expect(new Set([item, ...others.map((answer) => answer.body)].map((row) => row.id.slice(0, 8))).size).toBe(21);
    const entry = item.dispatch_log[0];
    expect(entry.id).toMatch(V7);
    expect(timeOf(entry.id)).toBe(Date.parse(entry.dispatched_at));
    expect((await call(t.app, 'GET', `/work/${item.id}`)).body.id).toBe(item.id);
  });
});
