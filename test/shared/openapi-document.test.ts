import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../helpers/apps.js';
import { startClassifyApp } from '../helpers/classify-app.js';
import { call } from '../helpers/http.js';

// What the OpenAPI documents say about answers must be what the services send: the fuzzer
// (test/fuzz) checks every answer against them, and found these three disagreements. The
// documents do not depend on the store, so SQLite alone is enough here.

type Responses = Record<string, { content?: Record<string, unknown> }>;

function operations(doc: any): Array<{ name: string; responses: Responses; description?: string }> {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, methods]) =>
    Object.entries<any>(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, responses: op.responses, description: op.description })),
  );
}

describe('the OpenAPI documents declare the answers as they are sent', () => {
  let work: TestApp;
  let classify: TestApp;
  const docs: Record<string, any> = {};
  beforeAll(async () => {
    [work, classify] = await Promise.all([startWorkApp('sqlite'), startClassifyApp('sqlite', { LLM_PROVIDER: 'rules' })]);
    docs.work = (await call(work.app, 'GET', '/openapi.json')).body;
    docs.classify = (await call(classify.app, 'GET', '/openapi.json')).body;
  });
  afterAll(async () => {
    await work?.close();
    await classify?.close();
  });

  it('every error answer, in both documents, is declared as application/problem+json (as sent), not application/json', () => {
    const wrong: string[] = [];
    for (const doc of Object.values(docs)) {
      for (const op of operations(doc)) {
        for (const [status, response] of Object.entries(op.responses)) {
          // The health probe's 503 is {"status":"unavailable"}, as the README documents it for load balancers.
          if (Number(status) < 400 || (op.name === 'GET /health' && status === '503')) continue;
          const types = Object.keys(response.content ?? {});
          if (types.length !== 1 || types[0] !== 'application/problem+json') wrong.push(`${op.name} ${status}: ${types.join(', ') || '(none)'}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    const problem = docs.work.paths['/work'].post.responses['422'].content['application/problem+json'].schema;
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail']));
  });

  it('GET /events declares its 200 as text/event-stream, which is what it sends', () => {
    expect(Object.keys(docs.work.paths['/events'].get.responses['200'].content)).toEqual(['text/event-stream']);
  });

  it("every route Fastify reads a body for (DELETE too) declares the parser's 400, 413, 415 and the JSON body check's 422", async () => {
    const missing: string[] = [];
    for (const doc of Object.values(docs)) {
      for (const op of operations(doc)) {
        if (!/^(POST|PUT|PATCH|DELETE) /.test(op.name)) continue;
        for (const status of ['400', '413', '415', '422']) if (!op.responses[status]) missing.push(`${op.name} ${status}`);
      }
    }
    expect(missing).toEqual([]);
    // What the declaration is for: a DELETE sent with a body that is not JSON.
    const { body: item } = await call(work.app, 'POST', '/work', { type: 'doc', description: 'd' });
    const answer = await work.app.inject({ method: 'DELETE', url: `/work/${item.id}`, headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect(answer.statusCode).toBe(415);
    expect(answer.headers['content-type']).toContain('application/problem+json');
  });

  it('with AUTH=off every operation declares 421, which the Host guard answers on every route', () => {
    const missing = Object.values(docs)
      .flatMap((doc) => operations(doc))
      .filter((op) => !op.responses['421']?.content?.['application/problem+json'])
      .map((op) => op.name);
    expect(missing).toEqual([]);
  });

  it("an operation's description states its access level once", () => {
    const repeated = operations(docs.work)
      .filter((op) => (op.description?.match(/Access: /g) ?? []).length > 1)
      .map((op) => op.name);
    expect(repeated).toEqual([]);
  });
});
