// One mutation per request, applied to a valid request once its references are resolved: a
// field replaced, removed or added, a key written twice in the JSON text, a value nested too
// deep, the text cut short, the wrong content type, a hostile header, path segment or query
// string, a method the path does not take. `pick` chooses among what the request has, so the
// same seed makes the same choice.

import fc from 'fast-check';
import { badCursors, badDates, hostileHeaderValue, hostileSegment, hostileValue } from './hostile-values.js';

export type Mutation =
  | { kind: 'none' }
  | { kind: 'field'; pick: number; value: unknown }
  | { kind: 'remove'; pick: number }
  | { kind: 'extra'; pick: number; key: string; value: unknown }
  | { kind: 'duplicate-key'; pick: number; value: unknown; hostileLast: boolean }
  | { kind: 'deep'; pick: number; depth: number; shape: 'arrays' | 'objects' }
  | { kind: 'truncate'; at: number }
  | { kind: 'content-type'; value: string | null }
  | { kind: 'raw-body'; text: string }
  | { kind: 'no-body' }
  | { kind: 'oversize' }
  | { kind: 'header'; name: string; value: string }
  | { kind: 'segment'; pick: number; text: string; raw: boolean }
  | { kind: 'query-raw'; text: string }
  | { kind: 'method'; pick: number }
  | { kind: 'trailing-slash' };

export const CONTENT_TYPES = [
  null,
  '',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/JSON',
  'Application/Json; Charset=UTF-8',
  'application/json; charset=latin1',
  'application/json;charset=utf-16',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/problem+json',
  'text/json',
  'application/vnd.api+json',
  'application/json, text/plain',
  'application/jsonx',
  '*/*',
  'application/',
  'application/json; boundary=',
] as const;

const RAW_BODIES = [
  '',
  ' ',
  'null',
  '[]',
  '[{}]',
  '1',
  '"text"',
  'true',
  '{}',
  '\ufeff{}',
  '{} trailing',
  "{'single': 'quotes'}",
  '{"a":1,}',
  '{"a":NaN}',
  '{"priority":1e999}',
  '{"priority":1.0}',
  '{"priority":-0}',
  '{"type":"t","description":"d","payload":{"x":1e999}}',
  '{"type":"t","description":"\\ud800"}',
  '{"description":"\\u0000"}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"type":"t","description":"d","payload":{"__proto__":1}}',
  '[[[[[[[[[[',
  '{"a":'.repeat(10_000),
  '\u0000',
  '{"type":"t","description":"d"}\u0000',
  '/* comment */ {}',
] as const;

const HEADER_NAMES = [
  'if-match',
  'if-none-match',
  'idempotency-key',
  'last-event-id',
  'x-user',
  'authorization',
  'cookie',
  'origin',
  'sec-fetch-site',
  'host',
  'accept',
  'accept-encoding',
  'content-encoding',
  'x-agentdesk-csrf',
  'x-forwarded-for',
  'x-forwarded-proto',
] as const;

const QUERY_RAW = fc.oneof(
  fc.constantFrom(
    'limit=1&limit=2',
    'status',
    'status=',
    '%zz=1',
    'a[b]=1',
    'limit=',
    'limit=-1',
    'limit=0',
    'limit=1001',
    'limit=01',
    'limit=1.0',
    'limit=1.5',
    'limit=1e3',
    'limit=0x10',
    'limit=%20',
    'sort=PRIORITY',
    'sort=',
    'status=queued,,',
    'status=queued,QUEUED',
    'status=%00',
    'status=queued&status=failed',
    'last_event_id=-1',
    'last_event_id=1e3',
    'last_event_id=999999999999999999',
    '__proto__=1',
    'constructor=1',
    '=',
    '&&&',
    '%',
    'x=%c0%ae',
  ),
  badCursors.map((cursor) => `cursor=${encodeURIComponent(cursor)}`),
  badDates.map((date) => `since=${encodeURIComponent(date)}`),
  fc.constantFrom(11_000).map((n) => `pad=${'q'.repeat(n)}`),
);

const key = fc.oneof(
  fc.constantFrom(
    'unknown',
    'ID',
    'Type',
    'status ',
    '',
    ' ',
    '$where',
    'constructor',
    'toString',
    'hasOwnProperty',
    'a.b',
    'dispatch_log',
    'version',
    'created_by',
  ),
  fc.string({ maxLength: 10 }),
);

export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Mutation>({ kind: 'none' }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('field' as const), pick: fc.nat(), value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('extra' as const), pick: fc.nat(), key, value: hostileValue }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('duplicate-key' as const),
      pick: fc.nat(),
      value: hostileValue,
      hostileLast: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deep' as const),
      pick: fc.nat(),
      depth: fc.oneof(fc.integer({ min: 60, max: 70 }), fc.constantFrom(200, 5_000, 20_000)),
      shape: fc.constantFrom('arrays' as const, 'objects' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('content-type' as const), value: fc.constantFrom(...CONTENT_TYPES) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('raw-body' as const), text: fc.constantFrom(...RAW_BODIES) }) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'no-body' }) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'oversize' }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('header' as const),
      name: fc.constantFrom(...HEADER_NAMES),
      value: hostileHeaderValue,
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat(), hostileSegment)
      .map(([pick, { text, raw }]): Mutation => ({ kind: 'segment', pick, text, raw })),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('query-raw' as const), text: QUERY_RAW }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('method' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'trailing-slash' }) },
);

/** A place in a JSON value: the keys from the root. */
export type JsonPath = Array<string | number>;

/** Every place in `value` down to `maxDepth`, the root first. */
export function jsonPaths(value: unknown, maxDepth = 4): JsonPath[] {
  const found: JsonPath[] = [];
  const visit = (node: unknown, path: JsonPath) => {
    found.push(path);
    if (path.length >= maxDepth || node === null || typeof node !== 'object') return;
    const entries = Array.isArray(node) ? node.map((item, index) => [index, item] as const) : Object.entries(node);
    for (const [name, item] of entries.slice(0, 12)) visit(item, [...path, name]);
  };
  visit(value, []);
  return found;
}

function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** `value` with the place at `path` set to `replacement` (or removed, for undefined). */
export function setAt(value: unknown, path: JsonPath, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const root = clone(value) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = root;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else {
    // defineProperty: a key named __proto__ becomes an own key, as JSON.parse would make it.
    Object.defineProperty(node, last, { value: replacement, enumerable: true, writable: true, configurable: true });
  }
  return root;
}

/** `depth` levels of arrays or objects around a 1, as JSON text (built flat: no recursion). */
export function nestedText(depth: number, shape: 'arrays' | 'objects'): string {
  return shape === 'arrays'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/**
 * The JSON text of an object body with `key` written twice: first `first`, then `last`.
 * JSON.parse keeps the last, so that is what the server acts on.
 */
export function duplicateKeyText(body: Record<string, unknown>, name: string, first: unknown, last: unknown): string {
  const rest = Object.entries(body).filter(([other]) => other !== name);
  const parts = [[name, first], ...rest, [name, last]].map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  return `{${parts.join(',')}}`;
}
