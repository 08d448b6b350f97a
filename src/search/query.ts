import { WORK_STATUSES, type WorkStatus } from '../work/contract.js';
import { ValidationError } from '../shared/errors.js';
import { MAX_SEARCH_QUERY } from './schemas.js';
import { foldedWords, isStopWord, stemPrefix } from './words.js';

// The query language, parsed here and nowhere else: what the user typed becomes terms of folded
// letters and digits and typed filters, and each store builds its full-text query from those
// alone, so no operator a user types (NEAR, OR, quotes, ':', '*') ever reaches MATCH or tsquery.

export const MAX_QUERY_LENGTH = MAX_SEARCH_QUERY;
export const MAX_TERMS = 20;

export type TextTerm =
  /** The exact word, or any word starting with `prefix` (its shortest stem); null: exactly (numbers, ids). */
  | { kind: 'word'; word: string; prefix: string | null }
  /** `word*`: any word starting with `prefix`, not stemmed. */
  | { kind: 'prefix'; prefix: string }
  /** `"exact phrase"` (and words typed joined, such as invoice-7731): these words in this order. */
  | { kind: 'phrase'; words: string[] }
  /**
   * A bare item id, whole or its first 8 hex digits (`hex`: lower case, no hyphens): the item
   * with that id, or `text`, what the same characters are as words.
   */
  | { kind: 'id'; hex: string; text: TextTerm };

export const IS_VALUES = ['open', 'final', 'needs-me'] as const;
export type IsValue = (typeof IS_VALUES)[number];

export interface SearchFilters {
  statuses: WorkStatus[];
  agents: string[];
  types: string[];
  /** Names or ids, as typed. */
  projects: string[];
  created_by: string[];
  priorities: number[];
  is: IsValue[];
  /** ISO times: created at or after / strictly before. */
  created_from: string | null;
  created_before: string | null;
}

export interface ParsedQuery {
  include: TextTerm[];
  exclude: TextTerm[];
  filters: SearchFilters;
}

const FILTER_KEYS = ['status', 'agent', 'type', 'project', 'by', 'is', 'created', 'priority'] as const;
type FilterKey = (typeof FILTER_KEYS)[number];

const invalid = (message: string) => ValidationError.of('q', message);

/** The raw pieces of the query: a leading `-`, a `key:` and a value that may have been quoted. */
interface Piece {
  negated: boolean;
  key: string | null;
  value: string;
  quoted: boolean;
}

function pieces(query: string): Piece[] {
  const found: Piece[] = [];
  let at = 0;
  while (at < query.length) {
    while (at < query.length && /\s/.test(query[at] as string)) at += 1;
    if (at >= query.length) break;
    let negated = false;
    if (query[at] === '-') {
      negated = true;
      at += 1;
    }
    let key: string | null = null;
    const keyed = /^([A-Za-z]+):(?=\S)/.exec(query.slice(at));
    if (keyed && (FILTER_KEYS as readonly string[]).includes((keyed[1] as string).toLowerCase())) {
      key = (keyed[1] as string).toLowerCase();
      at += keyed[0].length;
    }
    if (query[at] === '"') {
      // An unbalanced quote runs to the end: the phrase the user was typing.
      const close = query.indexOf('"', at + 1);
      const end = close === -1 ? query.length : close;
      found.push({ negated, key, value: query.slice(at + 1, end), quoted: true });
      at = end + 1;
      continue;
    }
    let end = at;
    while (end < query.length && !/\s/.test(query[end] as string) && query[end] !== '"') end += 1;
    found.push({ negated, key, value: query.slice(at, end), quoted: false });
    at = end;
  }
  return found;
}

function emptyFilters(): SearchFilters {
  return {
    statuses: [],
    agents: [],
    types: [],
    projects: [],
    created_by: [],
    priorities: [],
    is: [],
    created_from: null,
    created_before: null,
  };
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The instant a date (a UTC day) or an ISO time stands for, and the instant its day ends. */
function instant(value: string): { start: number; end: number } {
  const at = Date.parse(DATE.test(value) ? `${value}T00:00:00.000Z` : value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at)) {
    throw invalid(`created: "${value}" is not a date (YYYY-MM-DD) or an ISO time`);
  }
  return { start: at, end: DATE.test(value) ? at + DAY_MS : at + 1 };
}

function applyCreated(filters: SearchFilters, value: string): void {
  const [, op = '', rest = ''] = /^(>=|<=|>|<|=)?(.*)$/.exec(value) ?? [];
  const { start, end } = instant(rest);
  const iso = (ms: number) => new Date(ms).toISOString();
  const later = (a: string | null, b: string) => (a === null || b > a ? b : a);
  const earlier = (a: string | null, b: string) => (a === null || b < a ? b : a);
  if (op === '>') filters.created_from = later(filters.created_from, iso(end));
  else if (op === '>=') filters.created_from = later(filters.created_from, iso(start));
  else if (op === '<') filters.created_before = earlier(filters.created_before, iso(start));
  else if (op === '<=') filters.created_before = earlier(filters.created_before, iso(end));
  else {
    filters.created_from = later(filters.created_from, iso(start));
    filters.created_before = earlier(filters.created_before, iso(end));
  }
}

function applyPriority(filters: SearchFilters, value: string): void {
  const match = /^(>=|<=|>|<|=)?([1-5])$/.exec(value);
  if (!match) throw invalid(`priority: "${value}" is not a priority from 1 to 5 (priority:1, priority:<=2)`);
  const n = Number(match[2]);
  const holds = {
    '>': (p: number) => p > n,
    '>=': (p: number) => p >= n,
    '<': (p: number) => p < n,
    '<=': (p: number) => p <= n,
    '=': (p: number) => p === n,
  }[match[1] ?? '='] as (p: number) => boolean;
  for (const p of [1, 2, 3, 4, 5]) if (holds(p) && !filters.priorities.includes(p)) filters.priorities.push(p);
}

function applyFilter(filters: SearchFilters, key: FilterKey, value: string): void {
  switch (key) {
    case 'status': {
      const status = value.toLowerCase().replace(/-/g, '_');
      if (!(WORK_STATUSES as readonly string[]).includes(status)) {
        throw invalid(`status: "${value}" is not a status (${WORK_STATUSES.join(', ')})`);
      }
      filters.statuses.push(status as WorkStatus);
      return;
    }
    case 'agent':
      filters.agents.push(value);
      return;
    case 'type':
      filters.types.push(value);
      return;
    case 'project':
      filters.projects.push(value);
      return;
    case 'by':
      filters.created_by.push(value);
      return;
    case 'is': {
      const is = value.toLowerCase().replace(/_/g, '-');
      if (!(IS_VALUES as readonly string[]).includes(is)) {
        throw invalid(`is: "${value}" is not one of ${IS_VALUES.map((v) => `is:${v}`).join(', ')}`);
      }
      filters.is.push(is as IsValue);
      return;
    }
    case 'created':
      applyCreated(filters, value);
      return;
    case 'priority':
      applyPriority(filters, value);
      return;
    default: {
      const unreachable: never = key;
      throw new Error(`unknown filter ${String(unreachable)}`);
    }
  }
}

const WHOLE_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;
const SHORT_ID = /^[0-9a-f]{8}$/i;

/** The term a piece of text stands for; null when it holds no word (`*`, `:`, `"`). */
function textTerm(value: string, quoted: boolean): TextTerm | null {
  const words = foldedWords(value);
  if (words.length === 0) return null;
  if (!quoted && words.length === 1 && value.endsWith('*')) return { kind: 'prefix', prefix: words[0] as string };
  const word = words[0] as string;
  const text: TextTerm =
    quoted || words.length > 1
      ? { kind: 'phrase', words }
      : { kind: 'word', word, prefix: /\d/.test(word) ? null : stemPrefix(word) };
  const typed = value.trim();
  return WHOLE_ID.test(typed) || SHORT_ID.test(typed)
    ? { kind: 'id', hex: typed.replace(/-/g, '').toLowerCase(), text }
    : text;
}

const isStopTerm = (term: TextTerm) => term.kind === 'word' && isStopWord(term.word);

/** The query, parsed; a ValidationError (422) names what is wrong with it. */
export function parseQuery(query: string): ParsedQuery {
  if (query.includes('\u0000')) throw invalid('contains a NUL character');
  if (query.length > MAX_QUERY_LENGTH) throw invalid(`is longer than ${MAX_QUERY_LENGTH} characters`);
  const filters = emptyFilters();
  let include: TextTerm[] = [];
  const exclude: TextTerm[] = [];
  let filterCount = 0;
  for (const piece of pieces(query)) {
    if (piece.key !== null && piece.value.trim() !== '') {
      if (piece.negated) throw invalid(`-${piece.key}: filters cannot be excluded; exclude words instead`);
      applyFilter(filters, piece.key as FilterKey, piece.value.trim());
      filterCount += 1;
      continue;
    }
    const term = textTerm(piece.key === null ? piece.value : `${piece.key} ${piece.value}`, piece.quoted);
    if (term !== null) (piece.negated ? exclude : include).push(term);
  }
  if (include.length + exclude.length + filterCount > MAX_TERMS) {
    throw invalid(`has more than ${MAX_TERMS} words, phrases and filters`);
  }
  const meaningful = include.filter((term) => !isStopTerm(term));
  if (meaningful.length === 0 && filterCount === 0 && include.length > 0) {
    throw invalid('holds only common words (such as "the", "und", "de"); add a word that tells items apart');
  }
  include = meaningful;
  if (include.length === 0 && filterCount === 0) {
    throw invalid(
      exclude.length > 0
        ? 'excludes words but names nothing to find; add a word or a filter'
        : 'has no word or filter to search for',
    );
  }
  return { include, exclude: exclude.filter((term) => !isStopTerm(term)), filters };
}
