// The fuzzer's view of a service: every operation its OpenAPI document declares, with the
// schemas of its path, query, headers and body, and a validator for each declared response.
// Nothing here knows the routes by name: add a route and it is fuzzed.

import { Ajv, type Options as AjvOptions, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

export type JsonSchema = Record<string, any>;

export interface Param {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

export interface DeclaredResponse {
  /** Media type → validator of the body; empty for a response without content (204, 304). */
  content: Map<string, ValidateFunction>;
}

export interface Operation {
  service: string;
  method: string;
  /** The OpenAPI path, e.g. /work/{id}. */
  path: string;
  /** "POST /work/{id}/heartbeat": how failures name it. */
  name: string;
  description: string;
  pathParams: Param[];
  query: Param[];
  headers: Param[];
  body: JsonSchema | null;
  responses: Map<number, DeclaredResponse>;
  /** True when the document lists a security requirement: AUTH=tokens answers 401/403 for it. */
  secured: boolean;
  /** Validators as Fastify runs them: bodies never coerced, everything else coerced. */
  validate: {
    params: ValidateFunction;
    query: ValidateFunction;
    headers: ValidateFunction;
    body: ValidateFunction | null;
  };
}

type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)) as AddFormats;

const FIRST_TIME = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The options src/shared/http/validation.ts gives the validators, so the fuzzer judges validity alike,
 * including its one refinement of a format: a date-time must be one JavaScript's Date can read
 * (no leap second, no "+16" offset), in the years 0001–9999 UTC.
 */
export function requestAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    coerceTypes,
  } satisfies AjvOptions);
  addFormats(ajv);
  const rfc3339 = (ajv.formats['date-time'] as { validate: (text: string) => boolean }).validate;
  const storable = (text: string) => rfc3339(text) && Date.parse(text) >= FIRST_TIME && Date.parse(text) <= LAST_TIME;
  ajv.addFormat('date-time', { type: 'string', validate: storable });
  return ajv;
}

/** Server-made timestamps are promised as ISO 8601 UTC with milliseconds: nothing looser passes. */
const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function responseAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => ISO_MS_UTC.test(text) && new Date(text).toISOString() === text,
  });
  return ajv;
}

function objectSchema(params: Param[]): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((param) => [param.name, param.schema])),
    required: params.filter((param) => param.required).map((param) => param.name),
  };
}

/**
 * The document with every `$ref` to components.schemas replaced by the schema it names, so the
 * fuzzer reads each operation's schemas whole.
 */
export function inlineRefs(document: JsonSchema): JsonSchema {
  const schemas: JsonSchema = document.components?.schemas ?? {};
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as JsonSchema).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const target = schemas[ref.slice('#/components/schemas/'.length)];
      if (target === undefined) throw new Error(`${ref} names no schema`);
      return inline(target);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
  };
  return { ...document, paths: inline(document.paths) };
}

/** Every operation of the document, in document order. */
export function readOperations(service: string, named: JsonSchema): Operation[] {
  const document = inlineRefs(named);
  const bodies = requestAjv(false);
  const coerced = requestAjv(true);
  const responses = responseAjv();
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<JsonSchema>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<JsonSchema>(methods)) {
      // Uploads (a mailbox import takes message/rfc822 or application/mbox) are not JSON: the
      // fuzzer makes JSON bodies only, and their own tests send real files.
      const contentTypes = Object.keys(operation.requestBody?.content ?? {});
      if (contentTypes.length > 0 && !contentTypes.includes('application/json')) continue;
      const parameters: Array<JsonSchema> = operation.parameters ?? [];
      const pick = (where: string): Param[] =>
        parameters
          .filter((parameter) => parameter.in === where)
          .map((parameter) => ({
            name: parameter.name,
            schema: parameter.schema ?? {},
            required: parameter.required === true,
          }));
      const pathParams = pick('path');
      const query = pick('query');
      const headers = pick('header').map((param) => ({ ...param, name: param.name.toLowerCase() }));
      const body: JsonSchema | null = operation.requestBody?.content?.['application/json']?.schema ?? null;
      const declared = new Map<number, DeclaredResponse>();
      for (const [status, response] of Object.entries<JsonSchema>(operation.responses ?? {})) {
        const content = new Map<string, ValidateFunction>();
        for (const [mediaType, media] of Object.entries<JsonSchema>(response.content ?? {})) {
          content.set(mediaType, responses.compile(media.schema ?? {}));
        }
        declared.set(Number(status), { content });
      }
      operations.push({
        service,
        method: method.toUpperCase(),
        path,
        name: `${method.toUpperCase()} ${path}`,
        description: operation.description ?? '',
        pathParams,
        query,
        headers,
        body,
        responses: declared,
        secured: Array.isArray(operation.security) && operation.security.length > 0,
        validate: {
          params: coerced.compile(objectSchema(pathParams)),
          // Every documented route refuses query parameters it does not name.
          query: coerced.compile({ ...objectSchema(query), additionalProperties: false }),
          headers: coerced.compile(objectSchema(headers)),
          body: body === null ? null : bodies.compile(body),
        },
      });
    }
  }
  return operations;
}
