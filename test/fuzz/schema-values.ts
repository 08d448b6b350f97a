// Valid values for a JSON Schema, as fast-check arbitraries: what a well-behaved client could
// send. Strings avoid only what no schema can say and the JSON body check refuses anyway
// (U+0000, lone surrogates), which the mutations send on purpose. A `hint` may replace the
// value at any location (an id the server knows, a small set of agent names so that requests
// meet each other); without one, the schema alone decides.

import fc from 'fast-check';
import type { JsonSchema } from './openapi-operations.js';

/** A location in a request: "body.payload", "body.types[]", "query.cursor", "header.if-match". */
export type Where = string;

/** Returns an arbitrary for the location, or undefined to let the schema decide. */
export type Hint = (where: Where, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

// eslint-disable-next-line no-control-regex -- NUL is one of the values this rejects
const NUL_OR_LONE_SURROGATE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Length as JSON Schema counts it: in code points. */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Text of every kind a person or a program writes, some of it long. */
function freeText(maxLength: number): fc.Arbitrary<string> {
  const short = Math.min(maxLength, 40);
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: short }) },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: short }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: short }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'naïve café',
        'e\u0301cole',
        'Ελληνικά',
        '日本語のテキスト',
        'עברית',
        'مرحبا',
        '👩‍👩‍👧‍👦 family',
        '🇫🇷',
        'a\u200bb',
        '\u202eevil\u202c',
        '\ufeffBOM',
        'tab\tnew\nline\r\n',
        'x\u2028y\u2029z',
        '  padded  ',
        'quote " and \\ backslash',
        "' OR 1=1 --",
        '<script>alert(1)</script>',
        '${jndi:ldap://x}',
        '%00%2e%2e/',
      ),
    },
    // Long text, up to the schema's limit: the limits themselves are where bugs live.
    { weight: 1, arbitrary: fc.integer({ min: Math.max(0, maxLength - 2), max: maxLength }).map((n) => 'é'.repeat(n)) },
  );
}

function stringValue(schema: JsonSchema): fc.Arbitrary<string> {
  const min: number = schema.minLength ?? 0;
  const max: number = Math.min(schema.maxLength ?? 400, 20_000);
  const fits = (text: string) => {
    const length = codePoints(text);
    return length >= min && length <= max && !NUL_OR_LONE_SURROGATE.test(text);
  };
  if (schema.format === 'uuid') return uuidValue();
  if (schema.format === 'date-time') return dateTimeValue();
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    // An anchored pattern says what every character is; an unanchored one (\S) only what one is.
    const base = schema.pattern.startsWith('^') ? fc.stringMatching(pattern) : freeText(max);
    return base.filter((text) => fits(text) && pattern.test(text));
  }
  return freeText(max).filter(fits);
}

/** Every spelling JSON Schema's uuid format accepts, not only the canonical one. */
export function uuidValue(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.uuid().map((id) => `urn:uuid:${id}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
    },
  );
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/**
 * RFC 3339 date-times in the spellings ajv-formats accepts: lower-case t and z, a space for
 * the T, offsets with and without a colon or minutes, long fractions, a leap second, year 0.
 */
export function dateTimeValue(): fc.Arbitrary<string> {
  const instant = fc.date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('2100-01-01T00:00:00Z'),
    noInvalidDate: true,
  });
  const offset = fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }));
  return fc.oneof(
    { weight: 4, arbitrary: instant.map((date) => date.toISOString()) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(instant, offset, fc.constantFrom('colon', 'compact', 'hours'))
        .map(([date, [sign, hours, minutes], style]) => {
          const local = date.toISOString().slice(0, 19);
          const zone =
            style === 'colon'
              ? `${sign}${pad(hours)}:${pad(minutes)}`
              : style === 'compact'
                ? `${sign}${pad(hours)}${pad(minutes)}`
                : `${sign}${pad(hours)}`;
          return `${local}${zone}`;
        }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(instant, fc.constantFrom('lower', 'space', 'seconds', 'nanos')).map(([date, style]) => {
        const iso = date.toISOString();
        if (style === 'lower') return iso.replace('T', 't').replace('Z', 'z');
        if (style === 'space') return iso.replace('T', ' ');
        if (style === 'seconds') return `${iso.slice(0, 19)}Z`;
        return `${iso.slice(0, 23)}456789Z`;
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '2016-12-31T23:59:60Z',
        '2016-12-31T23:59:60.5Z',
        '2017-01-01T00:59:60+01:00',
        '0000-01-01T00:00:00Z',
        '0001-01-01T00:00:00Z',
        '0099-12-31T23:59:59.999Z',
        '9999-12-31T23:59:59.999Z',
        '9999-12-31T23:59:59-23:59',
        '2024-02-29T12:00:00Z',
        '1969-12-31T23:59:59Z',
      ),
    },
  );
}

function integerValue(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : undefined);
  if (min === undefined && max === undefined) {
    return fc.oneof(fc.integer(), fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER));
  }
  return fc.integer({ min: min ?? -(2 ** 31), max: max ?? 2 ** 31 });
}

function numberValue(schema: JsonSchema): fc.Arbitrary<number> {
  return fc.double({
    min: schema.minimum ?? -1e9,
    max: schema.maximum ?? 1e9,
    noNaN: true,
    noDefaultInfinity: true,
  });
}

/** Any JSON value, for open objects (a payload): shallow most of the time. */
export function anyJson(maxDepth = 3): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth }).filter((value) => !NUL_OR_LONE_SURROGATE.test(JSON.stringify(value) ?? ''));
}

function objectValue(schema: JsonSchema, where: Where, hint: Hint): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, JsonSchema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    shape[name] = schemaValue(property, `${where}.${name}`, hint);
  const declared = fc.record(shape, { requiredKeys: [...required] as never[] });
  const open = schema.additionalProperties !== false;
  let value: fc.Arbitrary<Record<string, unknown>> = declared;
  if (open) {
    const extraKey = fc
      .string({ maxLength: 12 })
      .filter((key) => !(key in properties) && key !== '__proto__' && !NUL_OR_LONE_SURROGATE.test(key));
    const extras =
      Object.keys(properties).length === 0
        ? fc.dictionary(extraKey, anyJson(), { maxKeys: 6 })
        : fc.option(fc.dictionary(extraKey, anyJson(2), { maxKeys: 2 }), { freq: 4 }).map((found) => found ?? {});
    value = fc.tuple(declared, extras).map(([known, more]) => ({ ...more, ...known }));
  }
  const minProperties: number = schema.minProperties ?? 0;
  return minProperties > 0 ? value.filter((object) => Object.keys(object).length >= minProperties) : value;
}

/** A valid value for `schema` at `where`; the hint has the first word. */
export function schemaValue(schema: JsonSchema, where: Where, hint: Hint): fc.Arbitrary<unknown> {
  const hinted = hint(where, schema);
  if (hinted) return hinted;
  if (Array.isArray(schema.anyOf))
    return fc.oneof(...schema.anyOf.map((branch: JsonSchema) => schemaValue(branch, where, hint)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  switch (schema.type) {
    case 'string':
      return stringValue(schema);
    case 'integer':
      return integerValue(schema);
    case 'number':
      return numberValue(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schemaValue(schema.items ?? {}, `${where}[]`, hint), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object':
      return objectValue(schema, where, hint);
    default:
      return anyJson();
  }
}
