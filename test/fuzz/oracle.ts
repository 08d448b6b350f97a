// What the answer to a request must be, worked out from the request's bytes and the OpenAPI
// document alone, in the order a request meets the server: routing, the access hook, the body
// parser, the JSON body check, the schemas. The first step that refuses it decides the status;
// a request every step lets through is valid, and may get any answer its operation declares
// except the ones for malformed requests.

import { hostName } from '../../src/auth/access-hook.js';
import { isLoopbackHost } from '../../src/shared/config/config.js';
import type { Operation } from './openapi-operations.js';
import type { Sendable } from './requests.js';

export type Expectation = (
  { kind: 'refused'; statuses: readonly number[]; why: string; op: Operation | null } | { kind: 'valid'; op: Operation }
) & {
  /** Statuses Node's HTTP parser may answer before any route (a head near its size limit). */
  parser?: readonly number[];
};

/** Who the request presents itself as, under AUTH=tokens; null under AUTH=off. */
export type Presented = { as: 'admin' } | { as: 'nobody' } | { as: 'role'; role: string } | null;

export interface OracleSettings {
  operations: Operation[];
  bodyLimit: (op: Operation) => number;
  /** The schema that finally judges an operation's body (the UI relay's is the classifier's). */
  bodyJudge: (op: Operation) => Operation;
  /** The depth the JSON body check allows (src/shared/http/json-body.ts). */
  maxDepth: number;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// The router's maxParamLength (src/shared/http/app.ts): a longer segment matches no route.
const MAX_PARAM_LENGTH = 256;
/** Node's limit on the request line and headers together; undici adds a few of its own. */
const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_SLACK = 1024;
const HIDDEN = /^\/(openapi\.json|docs(\/.*)?)?$/;

/**
 * The JSON-RPC endpoints (MCP, A2A) answer a body they refuse as a JSON-RPC client reads it: an
 * Invalid Request, 400. MCP's X-User check (AUTH=off) runs before the schema, so a schema failure
 * may be that 422.
 */
const isMcp = (op: Operation): boolean => op.name === 'POST /mcp' || op.name === 'POST /a2a';
/**
 * A2A's HTTP+JSON binding (/a2a/…) answers what it refuses in A2A's own error format: a body,
 * query or header that fails is a 400 INVALID_ARGUMENT, not a 422, and an empty body is an empty
 * request (the SDK's client sends none, with a JSON content type, to `:cancel`).
 */
export const isA2aRest = (op: Operation): boolean => op.path.startsWith('/a2a/');

const refused = (statuses: readonly number[], why: string, op: Operation | null = null): Expectation => ({
  kind: 'refused',
  statuses,
  why,
  op,
});

function segmentsOf(path: string): string[] {
  return path.split('/').slice(1);
}

const WHOLE_PARAM = /^\{[^}]+\}$/;

/**
 * The parameters a segment like `{id}:cancel` (a parameter, then text) takes from a decoded
 * segment, or null when it does not match: the router's parameter there holds no ':'.
 */
function mixedSegment(part: string, segment: string): Record<string, string> | null {
  const names: string[] = [];
  const pattern = part
    .split(/(\{[^}]+\})/)
    .map((piece) => {
      if (!piece.startsWith('{')) return piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(piece.slice(1, -1));
      return '([^:/]+)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(segment);
  return match ? Object.fromEntries(names.map((name, index) => [name, match[index + 1]!])) : null;
}

function templateMatches(template: string, path: string): boolean {
  const want = segmentsOf(template);
  const have = segmentsOf(path);
  if (want.length !== have.length) return false;
  // The router lets a parameter at the end of the path be empty ("/projects/" reaches
  // /projects/{id}, whose schema then refuses the empty id).
  return want.every((part, index) => {
    if (WHOLE_PARAM.test(part)) return have[index] !== '' || index === want.length - 1;
    if (part.includes('{')) return mixedSegment(part, decodeSegment(have[index]!) ?? have[index]!) !== null;
    return part === have[index];
  });
}

/** The operations whose path matches, the most specific (fewest parameters, then most text) first. */
export function routesAt(operations: Operation[], path: string): Operation[] {
  return operations
    .filter((op) => templateMatches(op.path, path))
    .sort((a, b) => a.pathParams.length - b.pathParams.length || b.path.length - a.path.length);
}

export function methodsAt(operations: Operation[], path: string): string[] {
  const methods = new Set<string>();
  for (const op of routesAt(operations, path)) {
    methods.add(op.method);
    if (op.method === 'GET') methods.add('HEAD');
  }
  return [...methods];
}

function decodeSegment(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/** The query as Fastify's parser reads it: repeated names become arrays, bad escapes stay as written. */
export function parseQuery(text: string): Record<string, string | string[]> {
  const parsed: Record<string, string | string[]> = Object.create(null);
  if (text === '') return parsed;
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const decode = (raw: string) => decodeSegment(raw.replace(/\+/g, ' ')) ?? raw;
    const name = decode(eq === -1 ? part : part.slice(0, eq));
    const value = eq === -1 ? '' : decode(part.slice(eq + 1));
    const earlier = parsed[name];
    parsed[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
  }
  return parsed;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What the JSON body check refuses: NUL, lone surrogates, nesting past the limit, __proto__ keys. */
export function unstorable(value: unknown, maxDepth: number): string | null {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node === 'string') {
      if (node.includes('\u0000') || LONE_SURROGATE.test(node)) return 'text no store keeps';
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return 'nested too deep';
    for (const [key, item] of Object.entries(node)) {
      if (!Array.isArray(node) && (key === '__proto__' || key.includes('\u0000') || LONE_SURROGATE.test(key)))
        return `key ${JSON.stringify(key)}`;
      stack.push({ node: item, depth: depth + 1 });
    }
  }
  return null;
}

function sameOrigin(headers: Record<string, string>): boolean {
  const origin = headers.origin;
  if (origin !== undefined) {
    try {
      const from = new URL(origin);
      return from.host === new URL(`${from.protocol}//${headers.host ?? ''}`).host;
    } catch {
      return false;
    }
  }
  const site = headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

/** The roles the document says may call the operation ("Access: read (viewer, agent, admin)."). */
function rolesOf(op: Operation): string[] | null {
  const match = /Access: \w+ \(([^)]*)\)/.exec(op.description);
  return match ? match[1]!.split(',').map((role) => role.trim()) : null;
}

export function expectationFor(request: Sendable, settings: OracleSettings, presented: Presented): Expectation {
  const head =
    Buffer.byteLength(`${request.method} ${request.path}${request.query ? `?${request.query}` : ''} HTTP/1.1\r\n`) +
    Object.entries(request.headers).reduce((sum, [name, value]) => sum + Buffer.byteLength(`${name}: ${value}\r\n`), 0);
  if (head > MAX_HEAD_BYTES + HEAD_SLACK) return refused([431], 'request line and headers over 16 KiB');
  const expectation = expectationWithinLimits(request, settings, presented);
  return head > MAX_HEAD_BYTES - HEAD_SLACK ? { ...expectation, parser: [431] } : expectation;
}

function expectationWithinLimits(request: Sendable, settings: OracleSettings, presented: Presented): Expectation {
  // HTTP strips the spaces around a header value; the server sees what is left.
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, value.trim()]));
  headers.host ??= '127.0.0.1';

  // 1. Routing.
  const segments = segmentsOf(request.path);
  if (segments.some((segment) => decodeSegment(segment) === null)) {
    return refused([400, 404], 'a percent-escape in the path does not decode');
  }
  const routes = routesAt(settings.operations, request.path);
  const op = routes.find(
    (candidate) => candidate.method === request.method || (request.method === 'HEAD' && candidate.method === 'GET'),
  );
  if (!op) {
    // Routes the documents leave out: the web UI's page, the document itself, its viewer.
    if (HIDDEN.test(request.path)) return refused([200, 301, 302, 304, 404, 405], 'a route the document hides');
    if (routes.length === 0 || request.path.endsWith('/'))
      return refused([404, 405], 'no route has this path (for this method)');
    return refused([405], `no ${request.method} route at this path`);
  }
  const values = segments.map((segment) => decodeSegment(segment)!);
  const templateParts = segmentsOf(op.path);
  const params: Record<string, string> = {};
  templateParts.forEach((part, index) => {
    if (WHOLE_PARAM.test(part)) params[part.slice(1, -1)] = values[index]!;
    else if (part.includes('{')) Object.assign(params, mixedSegment(part, values[index]!));
  });
  if (Object.values(params).some((value) => value.length > MAX_PARAM_LENGTH))
    return refused([404], 'path parameter too long', op);

  // 2. The access hook.
  if (presented === null) {
    const host = hostName(headers.host);
    if (host === null || !isLoopbackHost(host)) return refused([421], 'Host is not a loopback name (AUTH=off)', op);
  }
  if (UNSAFE.has(request.method) && !sameOrigin(headers)) return refused([403], 'cross-site', op);
  if (presented !== null && op.secured) {
    if (presented.as === 'nobody') return refused([401], 'no valid credential', op);
    if (presented.as === 'role') {
      const roles = rolesOf(op);
      if (roles && !roles.includes(presented.role)) return refused([403], `role ${presented.role} may not`, op);
    }
  }
  if (presented !== null) delete headers['x-user'];

  // 3. The body parser (Fastify reads no body for GET and HEAD).
  let body: unknown;
  const takesBody = request.method !== 'GET' && request.method !== 'HEAD';
  if (takesBody && request.body !== null) {
    const contentType = headers['content-type'];
    if (contentType === undefined || contentType === '') {
      if (request.body.length > 0) return refused([415], 'a body without a content type', op);
    } else {
      const media = contentType.split(';')[0]!.trim().toLowerCase();
      if (media !== 'application/json') return refused([415], `content type ${contentType}`, op);
      if (Buffer.byteLength(request.body) > settings.bodyLimit(op)) return refused([413], 'body over the limit', op);
      if (request.body === '' && !isA2aRest(op)) return refused([400], 'empty body', op);
      if (request.body !== '') {
        try {
          body = JSON.parse(request.body);
        } catch {
          return refused([400], 'not JSON', op);
        }
      }
      const bad = unstorable(body, settings.maxDepth);
      if (bad) return refused(isMcp(op) || isA2aRest(op) ? [400] : [422], `JSON body check: ${bad}`, op);
    }
  } else if (takesBody && headers['content-type'] !== undefined && headers['content-type'] !== '') {
    const media = headers['content-type'].split(';')[0]!.trim().toLowerCase();
    if (media !== 'application/json') return refused([415], `content type ${headers['content-type']}`, op);
    if (!isA2aRest(op)) return refused([400], 'a JSON content type and no body', op);
  }

  // 4. The schemas: params (a 404: no such resource), then body, query, headers (422).
  if (!op.validate.params(structuredClone(params))) return refused([404], 'path parameter fails its schema', op);
  const judge = settings.bodyJudge(op);
  if (judge.validate.body && !judge.validate.body(body === undefined ? undefined : structuredClone(body))) {
    return refused(
      isMcp(op) ? [400, 422] : isA2aRest(op) ? [400] : [422],
      `body fails its schema: ${JSON.stringify(judge.validate.body.errors?.slice(0, 2))}`,
      op,
    );
  }
  // Both A2A bindings answer a query or header that fails in their own format, a 400 (JSON-RPC's
  // Invalid Request; HTTP+JSON's INVALID_ARGUMENT).
  const schemaRefusal = isA2aRest(op) || op.name === 'POST /a2a' ? [400] : [422];
  const query = parseQuery(request.query);
  if (!op.validate.query({ ...query })) {
    return refused(
      schemaRefusal,
      `query fails its schema: ${JSON.stringify(op.validate.query.errors?.slice(0, 2))}`,
      op,
    );
  }
  if (!op.validate.headers({ ...headers })) {
    return refused(
      schemaRefusal,
      `headers fail their schema: ${JSON.stringify(op.validate.headers.errors?.slice(0, 2))}`,
      op,
    );
  }
  return { kind: 'valid', op };
}
