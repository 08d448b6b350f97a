import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { checkInvariants } from './invariants.js';
import { type Operation, readOperations } from './openapi-operations.js';
import { expectationFor } from './oracle.js';
import type { Sendable } from './requests.js';
import { checkAnswer } from './response-checks.js';

// The fuzzer's properties must be able to fail: each check here breaks one thing on purpose (a
// row written behind the service's back, an answer no route should give) and expects the
// fuzzer's own check to name it. A fuzzer that passes everything would prove nothing.

describe.each(await storesUnderTest())('the fuzzer notices what it is meant to, on %s', (kind) => {
  let t: TestApp;
  let operations: Operation[];
  beforeAll(async () => {
    t = await startWorkApp(kind);
    operations = readOperations('work', (await call(t.app, 'GET', '/openapi.json')).body);
  });
  afterAll(() => t?.close());

  const op = (name: string) => operations.find((one) => one.name === name)!;
  const db = () => t.database.kysely as Kysely<any>;
  const invariants = async (acknowledged = new Map<string, number>()) =>
    (
      await checkInvariants({
        database: t.database,
        acknowledged,
        deleted: new Set(),
        workItem: op('POST /work').responses.get(201)!.content.get('application/json')!,
        eventsAfter: 0,
        created: new Set(),
        removed: new Set(),
        changedSince: null,
      })
    ).broken.join('\n');

  it('invariants: a final item without outcome, a held item without its open entry, a lost write', async () => {
    const done = (await call(t.app, 'POST', '/work', { type: 'self', description: 'd', agent: 'ada' })).body;
    const held = (await call(t.app, 'POST', '/work', { type: 'self', description: 'd', agent: 'bo' })).body;
    expect(await invariants()).not.toMatch(/^[0-9]/m);
    await sql`UPDATE work_items SET status = 'completed' WHERE id = ${done.id}`.execute(db());
    await sql`UPDATE dispatch_log SET agent = 'someone-else' WHERE work_item_id = ${held.id}`.execute(db());
    await sql`DELETE FROM events WHERE type = 'work.created' AND data LIKE ${`%${done.id}%`}`.execute(db());
    const broken = await invariants(new Map([[held.id, 99]]));
    expect(broken).toMatch(/^2 final item without completed_at/m);
    expect(broken).toMatch(/^5 queued or final item with an open entry/m);
    expect(broken).toMatch(/^4 held item without exactly one open entry naming its agent/m);
    expect(broken).toMatch(/^13 item .* below the acknowledged 99/m);
    expect(broken).toMatch(/^15 item .* has no work.created event/m);
    await sql`DELETE FROM work_items WHERE id IN (${done.id}, ${held.id})`.execute(db());
  });

  const request = (over: Partial<Sendable>): Sendable => ({
    op: op('POST /work'),
    method: 'POST',
    path: '/work',
    query: '',
    headers: { 'content-type': 'application/json' },
    body: '{"type":"t","description":"d"}',
    mutation: 'none',
    ...over,
  });
  const settings = () => ({
    operations,
    bodyLimit: () => 1024 * 1024,
    bodyJudge: (one: Operation) => one,
    maxDepth: 64,
  });

  it('the oracle: a wrong type is a 422, a truncated body a 400, text/plain a 415, a bad id a 404, PUT a 405', () => {
    const statuses = (over: Partial<Sendable>) => {
      const expectation = expectationFor(request(over), settings(), null);
      return expectation.kind === 'valid' ? 'valid' : expectation.statuses;
    };
    expect(statuses({})).toBe('valid');
    expect(statuses({ body: '{"type":"t","description":7}' })).toEqual([422]);
    expect(statuses({ body: '{"type":"t","descr' })).toEqual([400]);
    expect(statuses({ headers: { 'content-type': 'text/plain' } })).toEqual([415]);
    expect(
      statuses({ op: op('GET /work/{id}'), method: 'GET', path: '/work/not-a-uuid', body: null, headers: {} }),
    ).toEqual([404]);
    expect(statuses({ method: 'PUT' })).toEqual([405]);
  });

  it('the answer checks: a 5xx, an error that is not problem+json, a body off its schema, a leaked secret', () => {
    const valid = expectationFor(request({}), settings(), null);
    const problems = (status: number, headers: Record<string, string>, text: string) =>
      checkAnswer(request({}), valid, { status, headers, text }, ['sk-secret-123']).join('\n');
    expect(
      problems(
        500,
        { 'content-type': 'application/problem+json' },
        '{"type":"x","title":"x","status":500,"detail":"x"}',
      ),
    ).toMatch(/never a 5xx/);
    expect(problems(409, { 'content-type': 'application/json' }, '{"status":409}')).toMatch(
      /not application\/problem\+json/,
    );
    expect(problems(201, { 'content-type': 'application/json', location: '/x', etag: '"1"' }, '{"id":"x"}')).toMatch(
      /does not match the declared 201 schema/,
    );
    expect(
      problems(
        418,
        { 'content-type': 'application/problem+json' },
        '{"type":"x","title":"x","status":418,"detail":"sk-secret-123"}',
      ),
    ).toMatch(/not declared[\s\S]*carries a secret/);
  });
});
