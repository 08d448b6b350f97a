import { type TSchema, Type } from 'typebox';
import { MAX_JSON_DEPTH } from './json-body.js';

// What the OpenAPI documents say beyond the route schemas: the tags, the license, the server, and the
// response headers the services send (each route names its own with `withHeaders`). The linters in
// test/shared/openapi-lint.test.ts hold both documents to Redocly's and Spectral's OWASP rules.

/** Every tag an operation may carry, with what it groups; a document lists those it uses. */
export const OPENAPI_TAGS = [
  {
    name: 'work items',
    description: 'Submit, claim, move and read work items; their history and the dashboard figures',
  },
  { name: 'projects', description: 'Projects that group work items' },
  {
    name: 'conversation',
    description: "An item's comments, questions to a person and their answers, reviews, and the inbox",
  },
  {
    name: 'notifications',
    description: 'The emails the desk sends people (questions, reviews): who was told, when, and what failed',
  },
  {
    name: 'webhooks',
    description:
      "Webhook endpoints (admins only): the desk's events POSTed to other systems, signed (Standard Webhooks), retried, with a delivery log",
  },
  {
    name: 'people',
    description: "People's profiles: the address the desk tells of questions and reviews, and how often",
  },
  {
    name: 'schedules',
    description: 'Recurring work: one work item per occurrence of a cron expression in a time zone',
  },
  { name: 'events', description: 'The Server-Sent Events stream of changes to work items and projects' },
  { name: 'classification', description: 'Classify emails with an LLM or the rules, and what it cost' },
  {
    name: 'mailboxes',
    description:
      "Mail intake: connected mailboxes, their intake log and imports. Every reading role may read them; connecting, changing, testing, importing and disconnecting are an admin's",
  },
  { name: 'mcp', description: 'The Model Context Protocol endpoint for agents' },
  {
    name: 'a2a',
    description: 'The desk as an A2A agent: its card, and tasks that are work items (JSON-RPC and HTTP+JSON)',
  },
  { name: 'tokens', description: 'API tokens (admins only)' },
  { name: 'session', description: 'Browser sign-in: a token exchanged for an HttpOnly session cookie' },
  { name: 'ui', description: "Endpoints the web UI calls on the work service's origin" },
  { name: 'health', description: 'Liveness and readiness for load balancers' },
  { name: 'metrics', description: 'Prometheus metrics' },
  { name: 'openapi', description: 'This description of the API' },
] as const;

export type OpenApiTag = (typeof OPENAPI_TAGS)[number]['name'];

/**
 * The project declares no license of its own (package.json has none and there is no LICENSE
 * file); it calls itself open source, and MIT is what that reads as until the owners say
 * otherwise. Change it here and in package.json together.
 */
export const OPENAPI_LICENSE = { name: 'MIT', identifier: 'MIT' } as const;

/** Relative: the document is served by the service it describes, on whatever origin that is. */
export const OPENAPI_SERVERS = [
  {
    url: '/',
    description: 'The service that serves this document, in whichever environment it runs (local, staging, production)',
    'x-internal': false,
  },
] as const;

/** The response headers the services send, each described once. */
export const RESPONSE_HEADERS = {
  Location: Type.String({ maxLength: 2048, description: 'The address of the resource just created' }),
  ETag: Type.String({
    maxLength: 16,
    pattern: '^"\\d{1,9}"$',
    description: 'The item\'s version as a strong entity tag ("3"): send it back in If-Match or If-None-Match',
  }),
  Link: Type.String({ maxLength: 4096, description: 'The next page, as `<url>; rel="next"`; absent on the last page' }),
  'Idempotent-Replayed': Type.Literal('true', {
    description: 'Present when this answer replays the one first given to the same Idempotency-Key',
  }),
  'Retry-After': Type.String({ maxLength: 10, pattern: '^\\d{1,9}$', description: 'Seconds to wait before retrying' }),
  'WWW-Authenticate': Type.String({
    maxLength: 128,
    description: 'The Bearer challenge, with error="invalid_token" when a credential was presented and refused',
  }),
  'Set-Cookie': Type.String({
    maxLength: 512,
    description: 'The HttpOnly, SameSite=Strict session cookie (cleared with Max-Age=0)',
  }),
  'Cache-Control': Type.String({
    maxLength: 64,
    description:
      'no-store where the answer holds a secret or who the caller is; no-cache, no-transform on the event stream; public, max-age=60 on the agent card',
  }),
  Vary: Type.String({
    maxLength: 64,
    description: 'accept-encoding: the answer is compressed when the client accepts br or gzip and it is over 1 kB',
  }),
  Allow: Type.String({ maxLength: 64, description: 'The methods the path takes' }),
} as const;

export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

/**
 * A response declaration with the headers the route sends on it, for the document only (Fastify
 * neither checks nor serializes response headers). Works on a schema and on a `{ description,
 * content }` declaration alike.
 */
export function withHeaders<T extends object>(
  response: T,
  ...names: ResponseHeader[]
): T & { headers: Record<string, TSchema> } {
  return { ...response, headers: Object.fromEntries(names.map((name) => [name, RESPONSE_HEADERS[name]])) };
}

interface Operation {
  tags?: string[];
}

/**
 * The finishing touches on a generated document: only the tags it uses, declared in the order
 * above. Given to @fastify/swagger as `transformObject`.
 */
export function finishDocument<T extends { paths?: Record<string, Record<string, unknown>>; tags?: unknown }>(
  document: T,
): T {
  const used = new Set<string>();
  for (const methods of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(methods) as Operation[]) {
      for (const tag of operation.tags ?? []) used.add(tag);
    }
  }
  return { ...document, tags: OPENAPI_TAGS.filter((tag) => used.has(tag.name)) };
}

/**
 * Node's default limit on a request's line and headers (`--max-http-header-size`): no query
 * string, path segment or header value can be longer, so it bounds every string there.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

type JsonSchema = Record<string, unknown>;

/** A copy of `schema` where every string and array without a bound gets the one given. */
function bounded(schema: unknown, maxLength: number): unknown {
  if (Array.isArray(schema)) return schema.map((item) => bounded(item, maxLength));
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    // `enum`, `const`, `default` and `examples` hold values, not schemas.
    copy[key] =
      key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? value : bounded(value, maxLength);
  }
  const types = Array.isArray(copy.type) ? copy.type : [copy.type];
  if (types.includes('string') && copy.maxLength === undefined && copy.enum === undefined && copy.const === undefined) {
    copy.maxLength = maxLength;
  }
  // Each element takes at least two bytes of the body (a digit and a comma).
  if (types.includes('array') && copy.maxItems === undefined) copy.maxItems = Math.ceil(maxLength / 2);
  return copy;
}

/**
 * Writes into a route's request schemas the bounds the transport already enforces, so that the
 * document states them (Spectral's OWASP rules ask every string and array for one): a body's
 * strings and arrays cannot outgrow the route's body limit (413 first), nor a query, path or
 * header string Node's header limit (431 first). Nothing is refused that was taken before;
 * tighter limits a route declares itself are kept. Copies: the schemas are shared between routes.
 */
export function boundRequestSchemas(schema: Record<string, unknown>, bodyLimit: number): void {
  if (schema.body !== undefined) schema.body = bounded(schema.body, bodyLimit);
  for (const part of ['querystring', 'params', 'headers'] as const) {
    if (schema[part] !== undefined) schema[part] = bounded(schema[part], MAX_HEADER_BYTES);
  }
  // The body's size and depth, which JSON Schema cannot say, in the answers that refuse them.
  const response = schema.response as Record<string, { description?: string }> | undefined;
  if (response?.[413])
    response[413] = { ...response[413], description: `The body is over this endpoint's limit of ${bodyLimit} bytes` };
  if (response?.[422] && schema.body !== undefined) {
    response[422] = {
      ...response[422],
      description: `The request is invalid (\`errors\` names the fields), a JSON body nests deeper than ${MAX_JSON_DEPTH} levels, or it holds text no store can keep`,
    };
  }
}

/**
 * The schemas a document names in `components.schemas`, so that a client generated from it has
 * the types by name. Responses are named as declared; request bodies as the document states them,
 * bounded by the service's body limit (a route with another limit keeps its body inline, since
 * its bounds differ).
 */
export interface NamedSchemas {
  responses: Record<string, TSchema>;
  requests: Record<string, TSchema>;
}

const COMPONENT = '#/components/schemas/';

/**
 * A schema as @fastify/swagger writes it into an OpenAPI 3.1 document: `const` as a one-value
 * `enum`, `patternProperties` as `additionalProperties`, no `$id` or `$schema`.
 */
function documentForm(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(documentForm);
  if (schema === null || typeof schema !== 'object') return schema;
  const form: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id' || key === '$schema') continue;
    if (key === 'const') form.enum = [value];
    else if (key === 'patternProperties')
      form.additionalProperties = documentForm(Object.values(value as JsonSchema)[0]);
    else if (key === 'enum' || key === 'default' || key === 'examples') form[key] = value;
    else form[key] = documentForm(value);
  }
  return form;
}

/** A schema's property names, sorted; null when it has none. */
function shapeOf(schema: unknown): string | null {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  return properties !== null && typeof properties === 'object' ? Object.keys(properties).sort().join(',') : null;
}

/** JSON with every object's keys sorted: equal schemas whatever order their keys were written in. */
function canonical(node: unknown): string {
  return JSON.stringify(node, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

/**
 * Replaces every schema in the document that is one of the named ones with a `$ref` to it, and
 * lists in `components.schemas` those referenced. The routes keep their schemas as they are, so
 * validation and serialization do not change; only the description refers by name. Matching is by
 * content, on the generated document (@fastify/swagger copies and converts the route schemas).
 */
export function nameSchemas<T extends { paths?: Record<string, unknown>; components?: Record<string, unknown> }>(
  document: T,
  named: NamedSchemas,
  bodyLimit: number,
): T {
  const byContent = new Map<string, string>();
  // Most subschemas differ from every named one in their property names: compared first, cheaply.
  const shapes = new Set<string | null>();
  const add = (name: string, schema: unknown) => {
    const form = documentForm(schema);
    shapes.add(shapeOf(form));
    const key = canonical(form);
    const taken = byContent.get(key);
    if (taken !== undefined) throw new Error(`the named schemas ${taken} and ${name} are the same schema`);
    byContent.set(key, name);
  };
  for (const [name, schema] of Object.entries(named.responses)) add(name, schema);
  for (const [name, schema] of Object.entries(named.requests)) add(name, bounded(schema, bodyLimit));

  // Each name's definition is its first occurrence, as the document writes it.
  const found = new Map<string, unknown>();
  const refer = (node: unknown, isDefinition = false): unknown => {
    if (Array.isArray(node)) return node.map((item) => refer(item));
    if (node === null || typeof node !== 'object') return node;
    const name = isDefinition || !shapes.has(shapeOf(node)) ? undefined : byContent.get(canonical(node));
    if (name !== undefined) {
      if (!found.has(name)) found.set(name, node);
      return { $ref: `${COMPONENT}${name}` };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, refer(value)]));
  };
  const paths = refer(document.paths) as T['paths'];
  // A definition may hold further names (a comment its links): define until none is new.
  const definitions = new Map<string, unknown>();
  while (definitions.size < found.size) {
    for (const [name, node] of [...found]) if (!definitions.has(name)) definitions.set(name, refer(node, true));
  }
  const order = [...Object.keys(named.responses), ...Object.keys(named.requests)];
  const schemas = Object.fromEntries(
    order.filter((name) => definitions.has(name)).map((name) => [name, definitions.get(name)]),
  );
  const existing = (document.components?.schemas ?? {}) as Record<string, unknown>;
  return { ...document, paths, components: { ...document.components, schemas: { ...existing, ...schemas } } };
}
