import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { startClassifyApp } from '../support/classify-app.js';
import { call } from '../support/http.js';
import { inlineRefs } from '../fuzz/openapi-operations.js';

// What the OpenAPI documents say about answers must be what the services send: the fuzzer
// (test/fuzz) checks every answer against them, and found these three disagreements. The
// documents do not depend on the store, so SQLite alone is enough here.

type Responses = Record<string, { content?: Record<string, unknown> }>;

function operations(doc: any): Array<{ name: string; responses: Responses; description?: string }> {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, methods]) =>
    Object.entries<any>(methods).map(([method, op]) => ({
      name: `${method.toUpperCase()} ${path}`,
      responses: op.responses,
      description: op.description,
    })),
  );
}

/** The paths to the strings in a schema that have no maxLength, enum or const. */
function unboundedStrings(schema: unknown, at = '#'): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as Record<string, unknown>;
  const here =
    node.type === 'string' && node.maxLength === undefined && node.enum === undefined && node.const === undefined
      ? [at]
      : [];
  return [
    ...here,
    ...Object.entries(node).flatMap(([key, value]) =>
      key === 'enum' || key === 'const' ? [] : unboundedStrings(value, `${at}/${key}`),
    ),
  ];
}

describe('the OpenAPI documents declare the answers as they are sent', () => {
  let work: TestApp;
  let classify: TestApp;
  const docs: Record<string, any> = {};
  beforeAll(async () => {
    [work, classify] = await Promise.all([
      startWorkApp('sqlite'),
      startClassifyApp('sqlite', { LLM_PROVIDER: 'rules' }),
    ]);
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
          // A JSON-RPC client reads JSON-RPC's own errors for a body that is not a JSON-RPC message.
          if ((op.name === 'POST /mcp' || op.name === 'POST /a2a') && status === '400') continue;
          const types = Object.keys(response.content ?? {});
          // An answer link is opened by a person's browser: its refusals are pages, or problems from the edges.
          if (op.name.endsWith(' /answer/{token}') && types.join() === 'text/html,application/problem+json') continue;
          // A2A's HTTP+JSON binding answers its own errors in A2A's REST error body, as its clients read
          // them; the edges (credentials, rate limits, sizes) still answer problems.
          if (op.name.includes(' /a2a/') && types.join() === 'application/a2a+json,application/problem+json') continue;
          if (types.length !== 1 || types[0] !== 'application/problem+json')
            wrong.push(`${op.name} ${status}: ${types.join(', ') || '(none)'}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    const problem = inlineRefs(docs.work).paths['/work'].post.responses['422'].content['application/problem+json']
      .schema;
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
        for (const status of ['400', '413', '415', '422'])
          if (!op.responses[status]) missing.push(`${op.name} ${status}`);
      }
    }
    expect(missing).toEqual([]);
    // What the declaration is for: a DELETE sent with a body that is not JSON.
    const { body: item } = await call(work.app, 'POST', '/work', { type: 'doc', description: 'd' });
    const answer = await work.app.inject({
      method: 'DELETE',
      url: `/work/${item.id}`,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
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

  it('every operation has a unique camelCase operationId and a tag the document declares, with a description', () => {
    for (const doc of Object.values(docs)) {
      const declared = new Map<string, string>(
        (doc.tags ?? []).map((tag: { name: string; description: string }) => [tag.name, tag.description]),
      );
      const ids: string[] = [];
      const wrong: string[] = [];
      for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(methods)) {
          const name = `${method.toUpperCase()} ${path}`;
          if (typeof op.operationId !== 'string' || !/^[a-z][A-Za-z]+$/.test(op.operationId))
            wrong.push(`${name}: operationId ${op.operationId}`);
          ids.push(op.operationId);
          if (!Array.isArray(op.tags) || op.tags.length === 0 || op.tags.some((tag: string) => !declared.get(tag)))
            wrong.push(`${name}: tags ${op.tags}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('public operations declare security: [] and every other one the bearer token or the session', () => {
    const PUBLIC = new Set([
      'GET /health',
      'GET /openapi.json',
      'GET /session',
      'POST /session',
      'DELETE /session',
      // The signed token in the path is the credential, good for one question.
      'GET /answer/{token}',
      'POST /answer/{token}',
      // A2A requires the agent card to be public.
      'GET /.well-known/agent-card.json',
    ]);
    for (const doc of Object.values(docs)) {
      expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer', 'session']);
      expect(doc.security).toEqual([{ bearer: [] }, { session: [] }]);
      for (const op of operations(doc)) {
        const security = (doc.paths[op.name.split(' ')[1]!] as any)[op.name.split(' ')[0]!.toLowerCase()].security;
        expect(security, op.name).toEqual(PUBLIC.has(op.name) ? [] : [{ bearer: [] }, { session: [] }]);
      }
    }
    expect(docs.work.paths['/openapi.json'].get.operationId).toBe('getOpenApiDocument');
  });

  it('the response headers the services send are documented on the answers that send them', async () => {
    const headersOf = (path: string, method: string, status: string) =>
      Object.keys(docs.work.paths[path][method].responses[status].headers ?? {});
    expect(headersOf('/work', 'post', '201')).toEqual(['Location', 'ETag', 'Idempotent-Replayed']);
    expect(headersOf('/work/{id}', 'get', '200')).toEqual(['ETag']);
    expect(headersOf('/work/{id}', 'get', '304')).toEqual(['ETag']);
    expect(headersOf('/work/{id}', 'patch', '200')).toEqual(['ETag']);
    expect(headersOf('/work', 'get', '200')).toEqual(['Link']);
    expect(headersOf('/work', 'post', '401')).toEqual(['WWW-Authenticate']);
    expect(headersOf('/work', 'post', '429')).toEqual(['Retry-After']);
    expect(headersOf('/events', 'get', '503')).toEqual(['Retry-After']);
    expect(headersOf('/session', 'post', '200')).toEqual(['Set-Cookie', 'Cache-Control']);
    expect(Object.keys(docs.classify.paths['/classify'].post.responses['429'].headers)).toEqual(['Retry-After']);
    // And they are sent: a created item answers with its address and its version.
    const created = await work.app.inject({
      method: 'POST',
      url: '/work',
      payload: { type: 'doc', description: 'headers' },
    });
    expect(created.headers.location).toBe(`/work/${created.json().id}`);
    expect(created.headers.etag).toMatch(
      new RegExp(docs.work.paths['/work'].post.responses['201'].headers.ETag.schema.pattern),
    );
  });

  it('the CSRF header is a parameter of the session routes and of every state-changing operation a browser session may call', () => {
    const named = (op: any) =>
      (op.parameters ?? []).some(
        (p: any) => p.name === 'x-agentdesk-csrf' || p.$ref === '#/components/parameters/csrf',
      );
    expect(docs.work.components.parameters.csrf).toMatchObject({ name: 'x-agentdesk-csrf', in: 'header' });
    expect(named(docs.work.paths['/session'].post)).toBe(true);
    expect(named(docs.work.paths['/session'].delete)).toBe(true);
    for (const doc of Object.values(docs)) {
      for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(methods)) {
          // The answer link's form is sent by a browser with no session: nothing ambient to forge.
          if (path === '/answer/{token}') expect(named(op), `${method} ${path}`).toBe(false);
          else if (['post', 'put', 'patch', 'delete'].includes(method))
            expect(named(op), `${method} ${path}`).toBe(true);
          else expect(named(op), `${method} ${path}`).toBe(false);
        }
      }
    }
  });

  it('states the license and the server, and the limits the server enforces', () => {
    for (const doc of Object.values(docs)) {
      expect(doc.info.license.name).toBeTruthy();
      expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    }
    const mcp = docs.work.paths['/mcp'].post.requestBody.content['application/json'].schema;
    expect(mcp.anyOf[1]).toMatchObject({ type: 'array', maxItems: 100 });
    expect(docs.work.paths['/work'].get.responses['200'].content['application/json'].schema.maxItems).toBe(1000);
    // A body's strings are bounded by the body limit, a query's by Node's header limit.
    const description = inlineRefs(docs.work).paths['/work'].post.requestBody.content['application/json'].schema
      .properties.description;
    expect(description.maxLength).toBeGreaterThan(0);
    // Size and depth, which JSON Schema cannot state, are in the answers that refuse them.
    expect(docs.work.paths['/work'].post.responses['413'].description).toMatch(/limit of \d+ bytes/);
    expect(docs.classify.paths['/classify'].post.responses['422'].description).toMatch(/deeper than 64 levels/);
    const classify = inlineRefs(docs.classify).paths['/classify'].post.requestBody.content['application/json'].schema;
    expect(unboundedStrings(classify)).toEqual([]);
  });

  it('refuses an MCP batch of more than 100 messages as an Invalid Request, as documented', async () => {
    const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const batch = (size: number) =>
      work.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'x-user': 'batch-bot',
        },
        payload: JSON.stringify(Array.from({ length: size }, (_, i) => ping(i))),
      });
    const over = await batch(101);
    expect(over.statusCode).toBe(400);
    expect(over.headers['content-type']).toContain('application/json');
    expect(over.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    const full = await batch(100);
    expect(full.statusCode).toBe(200);
    expect(full.json()).toHaveLength(100);
  });
});
