import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type JsonResponse, call } from '../support/http.js';

// Found by the fuzzer (test/fuzz): ajv-formats' date-time takes a leap second (23:59:60) and an
// offset without minutes (+16), which JavaScript's Date cannot read, so `since`, `updated_since`
// and `run_after` ended in a RangeError and a 500. Such a time is now a 422 naming the field;
// every time Date reads is still accepted, and stored in UTC. So is a time outside the years
// 0001–9999 in UTC (year 0 was a 500 on PostgreSQL, which has no year 0 in ISO form).

const UNREADABLE = [
  '2016-12-31T23:59:60Z',
  '2013-06-08T01:06:24+16',
  '2017-01-01T00:59:60+01:00',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59-00:01',
];

function expectRefused(response: JsonResponse, field: string): void {
  expect(response.status, response.text).toBe(422);
  expect(response.headers['content-type']).toContain('application/problem+json');
  expect(response.body.errors).toEqual([{ field, message: expect.stringContaining('date-time') }]);
}

describe.each(await storesUnderTest())('date-times JavaScript cannot read, on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind);
  });
  afterAll(() => t?.close());

  it.each(UNREADABLE)('%s in a list filter or a count is a 422, not a 500', async (time) => {
    const encoded = encodeURIComponent(time);
    expectRefused(await call(t.app, 'GET', `/work?since=${encoded}`), 'since');
    expectRefused(await call(t.app, 'GET', `/work?updated_since=${encoded}`), 'updated_since');
    expectRefused(await call(t.app, 'GET', `/work/counts?since=${encoded}`), 'since');
    expectRefused(await call(t.app, 'GET', `/work/agent/ada?since=${encoded}`), 'since');
  });

  it.each(UNREADABLE)('%s as run_after or a token expiry is a 422, and nothing is created', async (time) => {
    expectRefused(
      await call(t.app, 'POST', '/work', { type: 'dates', description: 'd', run_after: time }),
      'run_after',
    );
    expectRefused(
      await call(t.app, 'POST', '/tokens', { name: 'dates', role: 'viewer', expires_at: time }),
      'expires_at',
    );
    expect((await call(t.app, 'GET', '/work?type=dates')).body).toEqual([]);
  });

  it('the spellings Date reads are accepted and stored in UTC', async () => {
    const created = await call(t.app, 'POST', '/work', {
      type: 'dates',
      description: 'd',
      run_after: '2013-06-08t01:06:24.5+02:00',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.run_after).toBe('2013-06-07T23:06:24.500Z');
    expect((await call(t.app, 'GET', `/work?since=${encodeURIComponent('2013-06-08 01:06:24Z')}`)).status).toBe(200);
    for (const edge of ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
      const stored = await call(t.app, 'POST', '/work', { type: 'dates', description: 'edge', run_after: edge });
      expect(stored.status, stored.text).toBe(201);
      expect((await call(t.app, 'GET', `/work/${stored.body.id}`)).body.run_after).toBe(edge);
      expect((await call(t.app, 'GET', `/work?type=dates&since=${encodeURIComponent(edge)}`)).status).toBe(200);
    }
  });
});
