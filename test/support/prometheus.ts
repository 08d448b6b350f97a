// A strict reader of the Prometheus text exposition format (0.0.4), for tests. Written here
// because the one npm package for it (parse-prometheus-text-format) accepts garbage lines and
// drops histogram labels. It throws on anything a Prometheus server would refuse or misread:
// a sample before its family's TYPE, a TYPE given twice, an unknown type, a malformed name,
// label or value, a series given twice, a histogram whose buckets are not cumulative or whose
// +Inf bucket is not its count, a negative counter.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string | null;
  samples: Sample[];
}

export interface Scrape {
  families: Map<string, Family>;
  /** The value of the series with exactly these labels; 0 when it is absent (a counter not yet moved). */
  value(name: string, labels?: Record<string, string>): number;
  /** The sum over every series of `name` whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
  /** Every sample named `name`. */
  samples(name: string): Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const SUFFIXES: Record<MetricType, readonly string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

class ParseError extends Error {
  constructor(line: number, text: string, why: string) {
    super(`line ${line}: ${why}: ${JSON.stringify(text.slice(0, 160))}`);
  }
}

/** As Prometheus reads a value (Go's ParseFloat): NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string): number | null {
  const word = text.toLowerCase();
  if (word === '+inf' || word === 'inf') return Number.POSITIVE_INFINITY;
  if (word === '-inf') return Number.NEGATIVE_INFINITY;
  if (word === 'nan') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return null;
  return Number(text);
}

/** Reads `{a="x",b="y"}` from `text` at `start` (the brace); returns the labels and where they end. */
function parseLabels(
  text: string,
  start: number,
  fail: (why: string) => never,
): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    if (text[i] === '}') return { labels, end: i + 1 };
    const eq = text.indexOf('=', i);
    if (eq < 0) fail('a label without =');
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) fail(`bad label name ${name}`);
    if (name in labels) fail(`label ${name} given twice`);
    if (text[eq + 1] !== '"') fail('a label value must be quoted');
    let value = '';
    let j = eq + 2;
    for (; ; j += 1) {
      const c = text[j];
      if (c === undefined) fail('an unterminated label value');
      if (c === '"') break;
      if (c === '\\') {
        const next = text[j + 1];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else fail('a bad escape in a label value');
        j += 1;
      } else value += c;
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i += 1;
    else if (text[i] !== '}') fail('labels must be separated by commas');
  }
}

function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  for (const [name, family] of families) {
    for (const suffix of SUFFIXES[family.type]) if (sample === name + suffix) return family;
  }
  return undefined;
}

const seriesKey = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',')}}`;

export function parsePrometheus(text: string): Scrape {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, index) => {
    const fail = (why: string): never => {
      throw new ParseError(index + 1, line, why);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const match = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!match) return; // a plain comment
      const [, keyword, name, rest = ''] = match;
      if (!NAME.test(name!)) fail('bad metric name');
      const family = families.get(name!);
      if (keyword === 'TYPE') {
        if (!TYPES.includes(rest.trim() as MetricType)) fail('unknown type');
        if (family?.samples.length) fail('TYPE after samples');
        if (family && family.type !== 'untyped') fail('TYPE given twice');
        families.set(name!, { name: name!, type: rest.trim() as MetricType, help: family?.help ?? null, samples: [] });
      } else {
        if (family?.help != null) fail('HELP given twice');
        if (family) family.help = rest;
        else families.set(name!, { name: name!, type: 'untyped', help: rest, samples: [] });
      }
      return;
    }
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    const nameEnd = brace >= 0 && (space < 0 || brace < space) ? brace : space;
    if (nameEnd <= 0) fail('a sample needs a name and a value');
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) fail('bad metric name');
    let labels: Record<string, string> = {};
    let rest = line.slice(nameEnd);
    if (line[nameEnd] === '{') {
      const parsed = parseLabels(line, nameEnd, fail);
      labels = parsed.labels;
      rest = line.slice(parsed.end);
    }
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2)
      fail('expected a value and an optional timestamp');
    const value = parseValue(parts[0]!);
    if (value === null) fail('bad value');
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) fail('bad timestamp');
    const family = familyOf(name, families);
    if (!family) fail('a sample before its TYPE');
    if (family!.type === 'counter' && !(value! >= 0)) fail('a counter below zero');
    const key = seriesKey(name, labels);
    if (seen.has(key)) fail('a series given twice');
    seen.add(key);
    family!.samples.push({ name, labels, value: value! });
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);

  const samples = (name: string) =>
    [...families.values()].flatMap((family) => family.samples.filter((s) => s.name === name));
  const matches = (labels: Record<string, string>, wanted: Record<string, string>) =>
    Object.entries(wanted).every(([k, v]) => labels[k] === v);
  return {
    families,
    samples,
    value(name, labels = {}) {
      const found = samples(name).find(
        (s) => Object.keys(s.labels).length === Object.keys(labels).length && matches(s.labels, labels),
      );
      return found?.value ?? 0;
    },
    sum: (name, labels = {}) =>
      samples(name)
        .filter((s) => matches(s.labels, labels))
        .reduce((total, s) => total + s.value, 0),
  };
}

function checkHistogram(family: Family): void {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = seriesKey('', rest);
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (sample.name.endsWith('_bucket')) {
      const bound = le === undefined ? null : parseValue(le);
      if (bound === null) throw new Error(`${family.name}: a bucket without a numeric le`);
      group.buckets.push([bound, sample.value]);
    } else if (sample.name.endsWith('_count')) group.count = sample.value;
  }
  for (const [key, group] of groups) {
    const sorted = [...group.buckets].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i += 1) {
      if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${family.name}${key}: buckets are not cumulative`);
    }
    const inf = sorted.at(-1);
    if (!inf || inf[0] !== Number.POSITIVE_INFINITY) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (group.count !== inf[1])
      throw new Error(`${family.name}${key}: the +Inf bucket (${inf[1]}) is not the count (${group.count})`);
  }
}
