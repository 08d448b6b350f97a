import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { startClassifyApp } from '../support/classify-app.js';
import { call } from '../support/http.js';

// The OpenAPI documents name their main types (so a generated client has them by name) and say
// what the servers do: every route refuses a query parameter it does not name, every operation
// declares the answers any request can get, and the headers sent are declared where they are
// sent. The documents do not depend on the store, so SQLite alone is enough here.

type Doc = Record<string, any>;
const REF = '#/components/schemas/';

function operations(doc: Doc): Array<{ method: string; path: string; op: any }> {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, methods]) =>
    Object.entries<any>(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** Every `$ref` in a part of the document. */
function refsIn(node: unknown): string[] {
  if (node === null || typeof node !== 'object') return [];
  const own = typeof (node as Doc).$ref === 'string' ? [(node as Doc).$ref as string] : [];
  return [...own, ...Object.values(node).flatMap(refsIn)];
}

/** Sorted-key JSON, so that equal schemas compare equal. */
function canonical(node: unknown): string {
  return JSON.stringify(node, (_key, value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
}

/** The subschemas of the paths that repeat a named schema inline instead of referring to it. */
function inlineCopies(doc: Doc): string[] {
  const named = new Map(
    Object.entries<unknown>(doc.components.schemas).map(([name, schema]) => [canonical(schema), name]),
  );
  const copies: string[] = [];
  const walk = (node: unknown, at: string) => {
    if (node === null || typeof node !== 'object') return;
    const name = named.get(canonical(node));
    if (name !== undefined) copies.push(`${at} is ${name}`);
    for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
  };
  walk(doc.paths, '#/paths');
  return copies;
}

/** A concrete URL for an operation's path: a fresh UUID for ids, a plain name for names. */
function concrete(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => (name === 'agent' ? 'some-agent' : randomUUID()));
}

describe('the OpenAPI documents name their types and match the servers', () => {
  const apps: Record<string, TestApp> = {};
  const docs: Record<string, Doc> = {};
  beforeAll(async () => {
    [apps.work, apps.classify, apps.tokens] = await Promise.all([
      startWorkApp('sqlite'),
      startClassifyApp('sqlite', { LLM_PROVIDER: 'rules' }),
      startWorkApp('sqlite', AUTH_ENV),
    ]);
    for (const name of ['work', 'classify', 'tokens'])
      docs[name] = (await call(apps[name]!.app, 'GET', '/openapi.json')).body;
  });
  afterAll(async () => {
    await Promise.all(Object.values(apps).map((app) => app.close()));
  });

  it('names the main answers and request bodies in components.schemas and refers to them', () => {
    const work = docs.work!;
    expect(Object.keys(work.components.schemas)).toEqual(
      expect.arrayContaining([
        'Problem',
        'WorkItem',
        'WorkItemDetail',
        'WorkItemSummary',
        'Project',
        'Comment',
        'Question',
        'CreateWorkItem',
        'UpdateWorkItem',
        'Mailbox',
        'TokenRecord',
      ]),
    );
    expect(Object.keys(docs.classify!.components.schemas)).toEqual(
      expect.arrayContaining(['Problem', 'ClassifyRequest', 'ClassifyResult']),
    );
    const schemaOf = (path: string, method: string, status: string, type = 'application/json') =>
      work.paths[path][method].responses[status].content[type].schema;
    expect(schemaOf('/work/{id}', 'get', '200')).toEqual({ $ref: `${REF}WorkItemDetail` });
    expect(schemaOf('/work', 'post', '201')).toEqual({ $ref: `${REF}WorkItem` });
    expect(schemaOf('/work', 'get', '200').items).toEqual({ $ref: `${REF}WorkItemSummary` });
    expect(schemaOf('/work/{id}/questions/{question_id}', 'get', '200')).toEqual({ $ref: `${REF}Question` });
    expect(work.paths['/work'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: `${REF}CreateWorkItem`,
    });
    expect(docs.classify!.paths['/classify'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: `${REF}ClassifyRequest`,
    });
    for (const doc of Object.values(docs)) {
      // Every problem answer refers to the one Problem, and nothing named is repeated inline.
      for (const { method, path, op } of operations(doc)) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          const problem = response.content?.['application/problem+json'];
          if (problem) expect(problem.schema, `${method} ${path} ${status}`).toEqual({ $ref: `${REF}Problem` });
        }
      }
      expect(inlineCopies(doc)).toEqual([]);
      // Every reference resolves, and every named schema is used.
      const refs = new Set(refsIn(doc).filter((ref) => ref.startsWith(REF)));
      for (const ref of refs) expect(doc.components.schemas[ref.slice(REF.length)], ref).toBeDefined();
      expect([...refs].map((ref) => ref.slice(REF.length)).sort()).toEqual(Object.keys(doc.components.schemas).sort());
    }
  });

  it('every operation declares the answers any request can get: 400 (a bad escape), 408, 422, 431 and 503', async () => {
    const missing: string[] = [];
    for (const doc of Object.values(docs)) {
      for (const { method, path, op } of operations(doc)) {
        for (const status of ['400', '408', '422', '431', '503']) {
          if (!op.responses[status]) missing.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
    // A bad percent-escape is a 400 whatever the path.
    const escaped = await apps.work!.app.inject({ method: 'GET', url: '/work/%E0%A4%A' });
    expect(escaped.statusCode).toBe(400);
    expect(escaped.headers['content-type']).toContain('application/problem+json');
  });

  it.each(['work', 'classify', 'tokens'])(
    'every GET route of the %s service refuses a query parameter it does not name with a 422',
    async (name) => {
      const app = apps[name]!.app;
      const headers = name === 'tokens' ? bearer(AUTH_ENV.AGENTDESK_ADMIN_TOKEN) : {};
      const wrong: string[] = [];
      for (const { method, path } of operations(docs[name]!)) {
        if (method !== 'GET') continue;
        const answer = await app.inject({ method: 'GET', url: `${concrete(path)}?no_such_parameter=1`, headers });
        const body = String(answer.headers['content-type'] ?? '').includes('json') ? answer.json() : {};
        // A2A's HTTP+JSON binding refuses it in A2A's own format: a 400, INVALID_ARGUMENT.
        const refused = path.startsWith('/a2a/')
          ? answer.statusCode === 400 && String(body.error?.message).includes('no_such_parameter')
          : answer.statusCode === 422 && JSON.stringify(body.errors ?? []).includes('no_such_parameter');
        if (!refused) wrong.push(`GET ${path}: ${answer.statusCode}`);
      }
      expect(wrong).toEqual([]);
    },
  );

  it('a POST with a valid body and an unknown query parameter is a 422 too, and creates nothing', async () => {
    const app = apps.work!.app;
    const refused = await app.inject({
      method: 'POST',
      url: '/work?dry_run=1',
      payload: { type: 'doc', description: 'typo in the query' },
    });
    expect(refused.statusCode).toBe(422);
    expect(JSON.stringify(refused.json().errors)).toContain('dry_run');
    expect((await call(app, 'GET', '/work/counts')).body.queued).toBe(0);
  });

  it('the Vary and Cache-Control headers the routes send are declared on the answers that send them', async () => {
    const work = docs.work!;
    const declared = (path: string, method: string, status: number) =>
      Object.keys(work.paths[path]?.[method]?.responses[String(status)]?.headers ?? {}).map((h) => h.toLowerCase());
    expect(declared('/work/stats', 'get', 200)).toContain('vary');
    expect(declared('/events', 'get', 200)).toContain('cache-control');
    // Every GET without path parameters, as sent (the event stream never ends: declared above).
    const undeclared: string[] = [];
    for (const { method, path } of operations(work)) {
      if (method !== 'GET' || path.includes('{') || path === '/events') continue;
      const answer = await apps.work!.app.inject({ method: 'GET', url: path, headers: { 'accept-encoding': 'gzip' } });
      for (const header of ['vary', 'cache-control']) {
        if (answer.headers[header] !== undefined && !declared(path, 'get', answer.statusCode).includes(header))
          undeclared.push(`GET ${path} ${answer.statusCode} ${header}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('says that every reading role may read mailboxes and only an admin may change them, as the server does', async () => {
    const tokens = docs.tokens!;
    const access = (path: string, method: string) => /Access: (\w+)/.exec(tokens.paths[path][method].description)?.[1];
    expect(access('/mailboxes', 'get')).toBe('read');
    expect(access('/mailboxes/{id}', 'get')).toBe('read');
    expect(access('/mailboxes/{id}/messages', 'get')).toBe('read');
    expect(access('/mailboxes', 'post')).toBe('admin');
    expect(access('/mailboxes/{id}', 'patch')).toBe('admin');
    const tag = tokens.tags.find((t: { name: string }) => t.name === 'mailboxes');
    expect(tag.description).toMatch(/Every reading role may read them/);
    // And the server: a member reads the list and may not connect one.
    const member = bearer((await mintToken(apps.tokens!.app, { role: 'member', name: 'mia' })).token);
    expect((await call(apps.tokens!.app, 'GET', '/mailboxes', undefined, member)).status).toBe(200);
    expect((await call(apps.tokens!.app, 'POST', '/mailboxes', { name: 'm' }, member)).status).toBe(403);
  });
});
