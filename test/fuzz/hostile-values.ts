// What the mutations put where a valid value was: the wrong type, the wrong size, text no
// store keeps, ids and dates that are almost right, cursors that decode to nonsense, header
// values a careless or hostile client sends.

import fc from 'fast-check';

/** Text that breaks naive code: NUL, lone surrogates, controls, direction marks, odd forms. */
export const unicodeEdges = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  'lone \udc00 low',
  '\udbff\udfff', // a valid pair: U+10FFFF
  '\ud83d\ude80',
  '\u0007\u001b[31mred',
  '\u202eoverride',
  '\u2066isolate\u2069',
  '\ufeff',
  '\ufffe\uffff',
  '\u200b\u200c\u200d',
  'e\u0301\u0301\u0301\u0301\u0301',
  'ﬁ ǅ ß İ ı',
  '\u3000',
  ' ',
  '\n',
  '\t',
  'Z̷̢̛̛̝̞̳͎͔a̵͓̪͐l̶̢̦g̷o',
);

/** Numbers as they are and as text, including what JavaScript and SQL parse differently. */
const numberish = fc.constantFrom(
  0,
  -0,
  -1,
  1.5,
  1e21,
  -1e21,
  2 ** 53,
  2 ** 31,
  -(2 ** 31) - 1,
  1e308,
  5e-324,
  '1',
  '1e3',
  '0x10',
  'NaN',
  'Infinity',
  '-0',
  ' 1',
  '١',
);

/** Ids that look like ids to someone. */
export const badUuids = fc.constantFrom(
  'not-a-uuid',
  '00000000-0000-0000-0000-00000000000',
  '00000000-0000-0000-0000-0000000000000',
  '{3f2504e0-4f89-11d3-9a0c-0305e82c3301}',
  '3f2504e04f8911d39a0c0305e82c3301',
  'urn:uuid:3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  '3F2504E0-4F89-11D3-9A0C-0305E82C3301',
  '3f2504e0-4f89-11d3-9a0c-0305e82c330g',
  ' 3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  '3f2504e0-4f89-11d3-9a0c-0305e82c3301\n',
  '1',
  '0',
  '-1',
  "'; DROP TABLE work_items; --",
  '..',
  '%',
);

/** Dates that are almost right, or right in a form something downstream may not take. */
export const badDates = fc.constantFrom(
  '2024-02-30T00:00:00Z',
  '2024-13-01T00:00:00Z',
  '2024-01-01T24:00:00Z',
  '2024-01-01T23:59:60Z',
  '2024-01-01',
  '2024-01-01T00:00:00',
  '2024-01-01T00:00:00+24:00',
  '+275760-09-13T00:00:00.001Z',
  '-000001-01-01T00:00:00Z',
  'yesterday',
  '1700000000',
  '',
);

function cursorOf(parts: unknown): string {
  return Buffer.from(typeof parts === 'string' ? parts : JSON.stringify(parts)).toString('base64url');
}

/** Cursors: garbage, and well-formed base64url JSON whose parts are subtly wrong. */
export const badCursors = fc.oneof(
  fc.constantFrom('x', '====', '!!!', 'eyJ', '%00', 'a'.repeat(600)),
  fc.constantFrom(
    cursorOf('null'),
    cursorOf('{}'),
    cursorOf([]),
    cursorOf(['newest', '2024-01-01T00:00:00.000Z', '3f2504e0-4f89-11d3-9a0c-0305e82c3301']),
    cursorOf(['priority', '2024-01-01T00:00:00.000Z', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', 9]),
    cursorOf(['newest', '2024-99-99T99:99:99.999Z', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', 3]),
    cursorOf(['priority', '2024-02-30T00:00:00.000Z', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', 3]),
    cursorOf(['newest', '0000-00-00T00:00:00.000Z', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', 3]),
    cursorOf(['newest', '2024-01-01T00:00:00.000Z', '3F2504E0-4F89-11D3-9A0C-0305E82C3301', 3]),
    cursorOf(['newest', '2024-01-01T00:00:00.000Z', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', 3.5]),
    cursorOf(['newest', '2024-01-01T00:00:00.000Z', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', '3']),
    cursorOf(['newest', 1, 2, 3]),
  ),
  fc
    .tuple(fc.constantFrom('newest', 'priority'), fc.string(), fc.string(), fc.oneof(fc.integer(), fc.string()))
    .map(cursorOf),
);

/** Any value of the wrong kind for most fields. */
export const wrongTypes = fc.oneof(
  fc.constantFrom(null, true, false, [], {}, [1], { a: 1 }, '', 'x', [null], { '': null }),
  numberish,
  fc.jsonValue({ maxDepth: 2 }),
);

/** Strings of a size no field takes, or exactly at a limit. */
export const hugeStrings = fc.oneof(
  fc
    .constantFrom(64, 65, 100, 101, 200, 201, 255, 256, 512, 513, 1000, 1001, 2000, 2001, 10_000, 10_001)
    .map((n) => 'x'.repeat(n)),
  fc.integer({ min: 10_002, max: 70_000 }).map((n) => 'é'.repeat(n)),
  fc.constantFrom(65, 101, 10_001).map((n) => '🚀'.repeat(n)),
);

/** A value to put where a valid one was. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: wrongTypes },
  { weight: 2, arbitrary: hugeStrings },
  { weight: 3, arbitrary: unicodeEdges },
  { weight: 1, arbitrary: badUuids },
  { weight: 1, arbitrary: badDates },
  { weight: 1, arbitrary: badCursors },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);

/**
 * Header values: tab and printable ASCII only, which is what a client library sends; undici
 * refuses the rest (obs-text included) before it leaves the client.
 */
export const hostileHeaderValue = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '*',
    '"1"',
    'W/"1"',
    '"1", "2"',
    '"abc"',
    '"-1"',
    '"999999999999"',
    '1',
    ',',
    '"',
    '" 1 "',
    'null',
    '\t',
  ),
  fc.constantFrom(255, 256, 4000).map((n) => 'k'.repeat(n)),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((text) => text.replace(/[^\t\x20-\x7e]/g, '')),
);

/** A path segment to put where an id or a name was; `raw` ones are sent without encoding. */
export const hostileSegment = fc.oneof(
  badUuids.map((text) => ({ text, raw: false })),
  unicodeEdges.map((text) => ({ text, raw: false })),
  fc.constantFrom(101, 200, 5000).map((n) => ({ text: 'a'.repeat(n), raw: false })),
  fc
    .constantFrom('%', '%zz', '%c0%ae', '%ff', '%2e%2e', '%2F', '..', '.', '%00', 'a%20b')
    .map((text) => ({ text, raw: true })),
);
