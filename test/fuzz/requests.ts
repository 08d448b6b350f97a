// A fuzz request from draft to bytes: generated from the operation's schemas (with references
// to the server's state), resolved when it is sent, mutated once, and written out as the method,
// path, query, headers and body text that go on the wire.

import fc from 'fast-check';
import { Pools, type ResolveContext, keepOnMachine, resolve } from './desk-knowledge.js';
import { type Mutation, duplicateKeyText, jsonPaths, mutationArbitrary, nestedText, setAt } from './mutations.js';
import type { Operation, Param } from './openapi-operations.js';
import { type Hint, schemaValue } from './schema-values.js';

export interface Draft {
  op: Operation;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  /** undefined when the operation takes no body. */
  body: unknown;
  mutation: Mutation;
  /** Which credential to present under AUTH=tokens (see credentials in desk.ts). */
  credential: number;
}

/** What goes on the wire. */
export interface Sendable {
  op: Operation;
  method: string;
  /** Encoded path, without the query. */
  path: string;
  /** Encoded query, without the "?"; empty for none. */
  query: string;
  headers: Record<string, string>;
  /** The body text; null for no body at all. */
  body: string | null;
  /** What the mutation did, for the failure message. */
  mutation: string;
}

const ABSENT = Symbol('absent');

/** Parameters: the required ones always, each optional one about a third of the time. */
function paramsArbitrary(params: Param[], where: string, hint: Hint): fc.Arbitrary<Record<string, unknown>> {
  const shape = Object.fromEntries(
    params.map((param) => {
      const value = schemaValue(param.schema, `${where}.${param.name}`, hint);
      return [
        param.name,
        param.required
          ? value
          : fc.oneof({ weight: 2, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: value }),
      ];
    }),
  );
  return fc
    .record(shape)
    .map((values) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ABSENT)));
}

/** Valid requests for `op`, each with one mutation (often none) and a credential. */
export function draftArbitrary(
  op: Operation,
  hint: Hint,
  bodySchemaOf: (op: Operation) => Operation['body'],
): fc.Arbitrary<Draft> {
  const bodySchema = bodySchemaOf(op);
  return (
    fc
      .record({
        op: fc.constant(op),
        path: paramsArbitrary(op.pathParams, 'path', hint),
        query: paramsArbitrary(op.query, 'query', hint),
        headers: paramsArbitrary(op.headers, 'header', hint),
        body: bodySchema ? schemaValue(bodySchema, 'body', hint) : fc.constant(undefined),
        mutation: mutationArbitrary,
        credential: fc.nat({ max: 19 }),
      })
      // fast-check prints counterexamples; the operation's compiled validators would drown them.
      .map((draft) => Object.assign(draft, { [fc.toStringMethod]: () => `${op.name} (${draft.mutation.kind})` }))
  );
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Only what a client library sends in a header value (undici refuses the rest before sending). */
function headerSafe(value: unknown): string {
  return String(value).replace(/[^\t\x20-\x7e]/g, '');
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Percent-encoding as a URL library does it: a lone surrogate, which UTF-8 cannot carry, becomes U+FFFD. */
function encode(text: string): string {
  return encodeURIComponent(text.replace(LONE_SURROGATE, '\ufffd'));
}

function queryText(query: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const one of values) {
      const text =
        typeof one === 'string' ? one : one === null ? '' : typeof one === 'object' ? JSON.stringify(one) : String(one);
      pairs.push(`${encode(name)}=${encode(text)}`);
    }
  }
  return pairs.join('&');
}

export interface ConcretizeContext {
  pools: Pools;
  now: Date;
  adminSecret: string | null;
  fakeLlmUrl: string;
  bodyLimit: (op: Operation) => number;
  /** The methods some route of this service takes at a concrete path. */
  methodsAt: (path: string) => string[];
}

/** Resolves, mutates and serializes a draft. */
export function concretize(draft: Draft, context: ConcretizeContext): Sendable {
  const { op, mutation } = draft;
  const resolveContext: ResolveContext = {
    pools: context.pools,
    itemId: undefined,
    now: context.now,
    adminSecret: context.adminSecret,
  };
  const pathValues = resolve(draft.path, resolveContext) as Record<string, unknown>;
  if (op.path.startsWith('/work/{id}')) resolveContext.itemId = String(pathValues.id);
  let query = resolve(draft.query, resolveContext) as Record<string, unknown>;
  let headers = Object.fromEntries(
    Object.entries(resolve(draft.headers, resolveContext) as Record<string, unknown>).map(([name, value]) => [
      name,
      headerSafe(value),
    ]),
  );
  let body = resolve(draft.body, resolveContext);

  const segments = Object.fromEntries(Object.entries(pathValues).map(([name, value]) => [name, encode(String(value))]));
  let method = op.method;
  let rawQuery = '';
  let bodyText: string | null | undefined; // undefined: serialize `body`
  let contentType: string | null = 'application/json';
  let suffix = '';
  let described: string = mutation.kind;

  // A field of the body, the query or the headers, by one index over all three.
  const places = [
    ...(body === undefined ? [] : jsonPaths(body).map((path) => ({ part: 'body' as const, path }))),
    ...Object.keys(query).map((name) => ({ part: 'query' as const, path: [name] })),
    ...Object.keys(headers).map((name) => ({ part: 'header' as const, path: [name] })),
  ];
  const place = (n: number) => (places.length === 0 ? undefined : places[n % places.length]);

  switch (mutation.kind) {
    case 'none':
      break;
    case 'field':
    case 'remove': {
      const target = place(mutation.pick);
      if (!target) break;
      const value = mutation.kind === 'field' ? mutation.value : undefined;
      described = `${mutation.kind} ${target.part}.${target.path.join('.')}`;
      if (target.part === 'body') body = setAt(body, target.path, value);
      else if (target.part === 'query') query = setAt(query, target.path, value) as Record<string, unknown>;
      else if (value === undefined) delete headers[target.path[0] as string];
      else
        headers = {
          ...headers,
          [target.path[0] as string]: headerSafe(typeof value === 'string' ? value : JSON.stringify(value)),
        };
      break;
    }
    case 'extra': {
      const objects = body === undefined ? [] : jsonPaths(body).filter((path) => isObjectAt(body, path));
      if (objects.length === 0) {
        query = { ...query, [mutation.key]: mutation.value };
        described = `extra query ${JSON.stringify(mutation.key)}`;
      } else {
        const path = objects[mutation.pick % objects.length]!;
        body = setAt(body, [...path, mutation.key], mutation.value);
        described = `extra body.${[...path, mutation.key].join('.')}`;
      }
      break;
    }
    case 'duplicate-key': {
      if (!isObjectAt(body, [])) break;
      const keys = Object.keys(body as object);
      if (keys.length === 0) break;
      const name = keys[mutation.pick % keys.length]!;
      const safe = keepOnMachine(body, context.fakeLlmUrl) as Record<string, unknown>;
      const original = safe[name];
      bodyText = mutation.hostileLast
        ? duplicateKeyText(safe, name, original, mutation.value)
        : duplicateKeyText(safe, name, mutation.value, original);
      described = `duplicate key ${name} (${mutation.hostileLast ? 'hostile last' : 'hostile first'})`;
      break;
    }
    case 'deep': {
      const marker = JSON.stringify('\u0001deep\u0001');
      const spots = body === undefined ? [] : jsonPaths(body);
      if (spots.length === 0) break;
      const path = spots[mutation.pick % spots.length]!;
      const safe = keepOnMachine(setAt(body, path, '\u0001deep\u0001'), context.fakeLlmUrl);
      bodyText = JSON.stringify(safe).replace(marker, nestedText(mutation.depth, mutation.shape));
      described = `deep ${mutation.depth} ${mutation.shape} at body.${path.join('.')}`;
      break;
    }
    case 'truncate': {
      const text = body === undefined ? '' : JSON.stringify(keepOnMachine(body, context.fakeLlmUrl));
      if (text.length > 0) bodyText = text.slice(0, mutation.at % text.length);
      break;
    }
    case 'content-type':
      contentType = mutation.value;
      if (body === undefined) bodyText = '{}';
      described = `content-type ${JSON.stringify(mutation.value)}`;
      break;
    case 'raw-body':
      bodyText = mutation.text;
      described = `raw body ${JSON.stringify(mutation.text.slice(0, 60))}`;
      break;
    case 'no-body':
      bodyText = null;
      contentType = null;
      break;
    case 'oversize': {
      const limit = context.bodyLimit(op);
      bodyText = `{"description":"${'x'.repeat(limit + 16)}"}`;
      break;
    }
    case 'header':
      headers = { ...headers, [mutation.name]: mutation.value };
      described = `header ${mutation.name}: ${JSON.stringify(mutation.value.slice(0, 60))}`;
      break;
    case 'segment': {
      const names = Object.keys(segments);
      if (names.length === 0) break;
      const name = names[mutation.pick % names.length]!;
      segments[name] = mutation.raw ? mutation.text : encode(mutation.text);
      described = `path ${name} = ${JSON.stringify(mutation.text.slice(0, 60))}${mutation.raw ? ' (raw)' : ''}`;
      break;
    }
    case 'query-raw':
      rawQuery = mutation.text;
      described = `query ${JSON.stringify(mutation.text.slice(0, 60))}`;
      break;
    case 'method': {
      const path = fillTemplate(op.path, segments);
      const taken = new Set(context.methodsAt(path));
      const free = METHODS.filter((candidate) => !taken.has(candidate));
      if (free.length === 0) break;
      method = free[mutation.pick % free.length]!;
      described = `method ${method}`;
      break;
    }
    case 'trailing-slash':
      suffix = '/';
      break;
    default: {
      const unreachable: never = mutation;
      throw new Error(`unknown mutation ${JSON.stringify(unreachable)}`);
    }
  }

  if (bodyText === undefined) {
    bodyText = body === undefined ? null : JSON.stringify(keepOnMachine(body, context.fakeLlmUrl));
  }
  if (bodyText === null && mutation.kind !== 'content-type') contentType = null;
  // Signing in and out must carry the CSRF header, as the route's description says.
  const finalHeaders: Record<string, string> =
    op.path === '/session' && op.method !== 'GET' ? { 'x-agentdesk-csrf': '1', ...headers } : { ...headers };
  if (contentType !== null && bodyText !== null) finalHeaders['content-type'] = contentType;
  if (mutation.kind === 'content-type' && contentType !== null) finalHeaders['content-type'] = contentType;
  const queryPart = [queryText(query), rawQuery].filter(Boolean).join('&');
  return {
    op,
    method,
    // As the client sends it: a URL library resolves "." and ".." segments (%2e too) first.
    path: clientPath(fillTemplate(op.path, segments) + suffix),
    query: queryPart,
    headers: finalHeaders,
    body: bodyText,
    mutation: described,
  };
}

function clientPath(path: string): string {
  try {
    return new URL(path, 'http://127.0.0.1').pathname;
  } catch {
    return path;
  }
}

function isObjectAt(value: unknown, path: Array<string | number>): boolean {
  let node: unknown = value;
  for (const step of path) node = (node as Record<string | number, unknown>)[step];
  return node !== null && typeof node === 'object' && !Array.isArray(node);
}

function fillTemplate(template: string, segments: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_whole, name: string) => segments[name] ?? '');
}
