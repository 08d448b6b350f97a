import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/apps.js';
import { startWorkApp } from '../support/apps.js';
import { startClassifyApp } from '../support/classify-app.js';
import { storesUnderTest } from '../support/databases.js';
import { type JsonResponse, call } from '../support/http.js';

// Text no store can keep faithfully (NUL, lone
// surrogates), nesting deeper than anything can list, and `__proto__` keys are refused at the
// JSON body, for every route, with a 422 naming the field; both stores answer alike.

const MAX_DEPTH = 64;

/** `{"a": [[…[1]…]]}` with `levels` nested arrays inside the object. */
function nested(levels: number): string {
  return `{"a":${'['.repeat(levels)}1${']'.repeat(levels)}}`;
}

function expectRefused(response: JsonResponse, field: string, words: RegExp): void {
  expect(response.status, response.text).toBe(422);
  expect(response.headers['content-type']).toContain('application/problem+json');
  expect(response.body.errors).toEqual([{ field, message: expect.stringMatching(words) }]);
  expect(response.body.detail).toContain(field);
}

describe.each(await storesUnderTest())('hostile text and shapes in JSON bodies on %s', (kind) => {
  let work: TestApp;
  let classify: TestApp;
  beforeAll(async () => {
    [work, classify] = await Promise.all([startWorkApp(kind), startClassifyApp(kind, { LLM_PROVIDER: 'rules' })]);
  });
  afterAll(async () => {
    await work?.close();
    await classify?.close();
  });

  async function newItem(): Promise<string> {
    const created = await call(work.app, 'POST', '/work', { type: 'edge', description: 'plain' });
    expect(created.status).toBe(201);
    return created.body.id;
  }

  describe('NUL (U+0000) is refused in any string, the same on both stores', () => {
    it('in a work description, notes, a payload value and a payload key', async () => {
      expectRefused(
        await call(work.app, 'POST', '/work', { type: 't', description: 'a\u0000b' }),
        'description',
        /U\+0000/,
      );
      const id = await newItem();
      expectRefused(await call(work.app, 'PATCH', `/work/${id}`, { notes: 'x\u0000' }), 'notes', /U\+0000/);
      expectRefused(
        await call(work.app, 'POST', '/work', { type: 't', description: 'd', payload: { deep: [{ v: '\u0000' }] } }),
        'payload.deep.0.v',
        /U\+0000/,
      );
      expectRefused(
        await call(work.app, 'POST', '/work', { type: 't', description: 'd', payload: { 'k\u0000': 1 } }),
        'payload',
        /key.*U\+0000/,
      );
      expect((await call(work.app, 'GET', `/work/${id}`)).body.notes).toBeNull();
    });

    it('in project names and external references', async () => {
      expectRefused(await call(work.app, 'POST', '/projects', { name: 'nul\u0000name' }), 'name', /U\+0000/);
      expectRefused(
        await call(work.app, 'POST', '/projects', { name: 'ok', external_ref: '\u0000' }),
        'external_ref',
        /U\+0000/,
      );
    });

    it('in a classification request: id, conversationId, the body', async () => {
      const email = { email_data: { subject: 'Hello', body: 'Please review.' } };
      expectRefused(await call(classify.app, 'POST', '/classify', { ...email, id: 'm\u00001' }), 'id', /U\+0000/);
      expectRefused(
        await call(classify.app, 'POST', '/classify', { ...email, id: 'm-2', conversationId: 'c\u0000' }),
        'conversationId',
        /U\+0000/,
      );
      expectRefused(
        await call(classify.app, 'POST', '/classify', { email_data: { subject: 'Hi', body: 'a\u0000b' }, id: 'm-3' }),
        'email_data.body',
        /U\+0000/,
      );
    });
  });

  describe('invalid Unicode (a lone surrogate) is refused, never stored as U+FFFD', () => {
    it('in a description, notes, a project name and a classify id', async () => {
      expectRefused(
        await call(work.app, 'POST', '/work', { type: 't', description: 'lone \ud800' }),
        'description',
        /surrogate/,
      );
      expectRefused(
        await call(work.app, 'POST', '/work', { type: 't', description: 'low \udc00 first' }),
        'description',
        /surrogate/,
      );
      const id = await newItem();
      expectRefused(await call(work.app, 'PATCH', `/work/${id}`, { notes: '\udfff' }), 'notes', /surrogate/);
      expectRefused(await call(work.app, 'POST', '/projects', { name: 'p \ud83d' }), 'name', /surrogate/);
      expectRefused(
        await call(classify.app, 'POST', '/classify', { email_data: { subject: 's', body: 'b' }, id: '\ud800' }),
        'id',
        /surrogate/,
      );
    });

    it('a well-formed pair (an emoji) is stored and read back exactly', async () => {
      const description = 'ship it \ud83d\ude80 — naïve';
      const created = await call(work.app, 'POST', '/work', { type: 't', description });
      expect(created.status).toBe(201);
      expect((await call(work.app, 'GET', `/work/${created.body.id}`)).body.description).toBe(description);
    });
  });

  describe(`nesting deeper than ${MAX_DEPTH} levels is a 422, for every JSON body`, () => {
    it('10,000 levels in a payload: 422, not a 500', async () => {
      const body = `{"type":"t","description":"deep","payload":${nested(10_000)}}`;
      const response = await call(work.app, 'POST', '/work', body);
      expect(response.status, response.text).toBe(422);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.body.errors).toEqual([
        { field: expect.stringMatching(/^payload\.a(\.0)+$/), message: `nests deeper than ${MAX_DEPTH} levels` },
      ]);
    });

    it(`exactly ${MAX_DEPTH} levels counting the body is accepted and lists back; one more is refused`, async () => {
      // body (1) > payload (2) > a (3) > arrays...
      const fits = `{"type":"t","description":"deep ok","payload":${nested(MAX_DEPTH - 2)}}`;
      const created = await call(work.app, 'POST', '/work', fits);
      expect(created.status, created.text).toBe(201);
      const listed = await call(work.app, 'GET', '/work?type=t&limit=1000');
      expect(listed.status).toBe(200);
      expect(listed.body.some((item: { id: string }) => item.id === created.body.id)).toBe(true);

      const tooDeep = `{"type":"t","description":"deep no","payload":${nested(MAX_DEPTH - 1)}}`;
      expect((await call(work.app, 'POST', '/work', tooDeep)).status).toBe(422);
    });

    it('on PATCH, on projects and on /classify too', async () => {
      const id = await newItem();
      const deepObject = `${'{"x":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
      for (const [app, method, url] of [
        [work.app, 'PATCH', `/work/${id}`],
        [work.app, 'POST', '/projects'],
        [classify.app, 'POST', '/classify'],
      ] as const) {
        const response = await call(app, method, url, deepObject);
        expect(response.status, `${method} ${url}: ${response.text}`).toBe(422);
        expect(response.body.errors[0].message).toBe(`nests deeper than ${MAX_DEPTH} levels`);
      }
    });
  });

  describe('`__proto__` as a key', () => {
    it('is a 422 that names the key, not "not valid JSON", and nothing is stored', async () => {
      const top = await call(
        work.app,
        'POST',
        '/work',
        '{"type":"t","description":"proto","__proto__":{"priority":1}}',
      );
      expectRefused(top, '__proto__', /not allowed/);
      const inPayload = await call(
        work.app,
        'POST',
        '/work',
        '{"type":"t","description":"proto","payload":{"x":{"__proto__":{"admin":true}}}}',
      );
      expectRefused(inPayload, 'payload.x.__proto__', /not allowed/);
      const listed = await call(work.app, 'GET', '/work?type=t&limit=1000');
      expect(listed.body.filter((item: { description: string }) => item.description === 'proto')).toEqual([]);
    });

    it('broken JSON is still a 400', async () => {
      const response = await call(work.app, 'POST', '/work', '{"type":"t",');
      expect(response.status).toBe(400);
      expect(response.body.detail).toBe('The body is not valid JSON');
    });
  });

  describe('project names are unique after NFC normalisation', () => {
    it('école (precomposed) and e + U+0301 cole (decomposed) are the same name', async () => {
      const first = await call(work.app, 'POST', '/projects', { name: '\u00e9cole' });
      expect(first.status).toBe(201);
      const second = await call(work.app, 'POST', '/projects', { name: 'e\u0301cole' });
      expect(second.status, second.text).toBe(409);
      const upper = await call(work.app, 'POST', '/projects', { name: 'E\u0301COLE' });
      expect(upper.status, upper.text).toBe(409);
      const other = await call(work.app, 'POST', '/projects', { name: 'other school' });
      const renamed = await call(work.app, 'PATCH', `/projects/${other.body.id}`, { name: 'E\u0301cole' });
      expect(renamed.status, renamed.text).toBe(409);
    });
  });
});
