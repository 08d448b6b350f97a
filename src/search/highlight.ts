import type { WorkItemRow } from '../work/index.js';
import type { TextTerm } from './query.js';
import type { SearchSources } from './store/port.js';
import { type WordAt, wordsOf } from './words.js';

// Where a found item matched and its best passage, worked out here from the item's texts with
// the same terms the store matched: one answer on both stores, whatever their rank functions.

export const MATCH_PLACES = [
  'id',
  'type',
  'description',
  'notes',
  'payload',
  'comment',
  'question',
  'answer',
  'email',
] as const;
export type MatchPlace = (typeof MATCH_PLACES)[number];

/** The order a highlight is taken in: what a person reads first. */
const PASSAGE_ORDER: readonly MatchPlace[] = [
  'description',
  'comment',
  'question',
  'answer',
  'email',
  'notes',
  'payload',
  'type',
  'id',
];

export interface Highlight {
  field: MatchPlace;
  /** Escaped text with the matched words in <mark>…</mark>. */
  html: string;
}

const PASSAGE_CHARS = 200;

function wordMatches(term: TextTerm, word: string): boolean {
  if (term.kind === 'word') return word === term.word || (term.prefix !== null && word.startsWith(term.prefix));
  if (term.kind === 'prefix') return word.startsWith(term.prefix);
  return false;
}

/**
 * The spans (indexes into `words`) where `term` matches. An id (the `id` place) is matched by an
 * id typed, whole or by its first group, as the stores index it, never by a word of it.
 */
function spansOf(term: TextTerm, words: readonly WordAt[], place: MatchPlace): [number, number][] {
  if (place === 'id') {
    if (term.kind !== 'id' || words.length === 0) return [];
    if (words.map((w) => w.word).join('') === term.hex) return [[0, words.length - 1]];
    return words[0]?.word === term.hex ? [[0, 0]] : [];
  }
  if (term.kind === 'id') return spansOf(term.text, words, place);
  if (term.kind !== 'phrase') {
    return words.flatMap((word, i): [number, number][] => (wordMatches(term, word.word) ? [[i, i]] : []));
  }
  const spans: [number, number][] = [];
  for (let i = 0; i + term.words.length <= words.length; i += 1) {
    if (term.words.every((want, k) => words[i + k]?.word === want)) spans.push([i, i + term.words.length - 1]);
  }
  return spans;
}

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

function passage(text: string, words: readonly WordAt[], spans: [number, number][]): string {
  const first = spans.reduce((a, b) => (b[0] < a[0] ? b : a));
  const anchor = (words[first[0]] as WordAt).start;
  let start = Math.max(0, anchor - PASSAGE_CHARS / 4);
  const space = text.indexOf(' ', start);
  if (start > 0 && space !== -1 && space < anchor) start = space + 1;
  let end = Math.min(text.length, start + PASSAGE_CHARS);
  if (end < text.length) end = text.lastIndexOf(' ', end) > anchor ? text.lastIndexOf(' ', end) : end;
  const marks = spans
    .map(([a, b]) => [(words[a] as WordAt).start, (words[b] as WordAt).end] as const)
    .filter(([a, b]) => a >= start && b <= end)
    .sort((x, y) => x[0] - y[0]);
  let html = start > 0 ? '…' : '';
  let at = start;
  for (const [a, b] of marks) {
    if (a < at) continue;
    html += `${escapeHtml(text.slice(at, a))}<mark>${escapeHtml(text.slice(a, b))}</mark>`;
    at = b;
  }
  html += escapeHtml(text.slice(at, end)) + (end < text.length ? '…' : '');
  return html.replace(/\s+/g, ' ');
}

function payloadStrings(payload: string | null): string[] {
  if (payload === null) return [];
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(JSON.parse(payload));
  return strings;
}

/** Each place's texts for one item. */
function textsOf(row: WorkItemRow, sources: SearchSources): Record<MatchPlace, string[]> {
  const mine = <T extends { work_item_id: string }>(rows: T[]) => rows.filter((r) => r.work_item_id === row.id);
  const comments = mine(sources.comments);
  const questions = mine(sources.questions);
  return {
    id: [row.id],
    type: [row.type],
    description: [row.description],
    notes: row.notes === null ? [] : [row.notes],
    payload: payloadStrings(row.payload),
    comment: comments.filter((c) => c.kind === 'note' || c.kind === 'progress').map((c) => c.body),
    question: questions.map((q) => q.question),
    answer: questions.flatMap((q) => (q.answer === null ? [] : [q.answer])),
    email: [
      ...comments.filter((c) => c.kind === 'email').map((c) => c.body),
      ...mine(sources.mails).map((m) => [m.subject, m.sender].filter(Boolean).join(' ')),
    ],
  };
}

export function describeMatch(
  row: WorkItemRow,
  sources: SearchSources,
  terms: readonly TextTerm[],
): { matched_in: MatchPlace[]; highlight: Highlight | null } {
  const texts = textsOf(row, sources);
  const matched_in: MatchPlace[] = [];
  let best: { field: MatchPlace; text: string; words: WordAt[]; spans: [number, number][]; hit: number } | null = null;
  for (const field of PASSAGE_ORDER) {
    for (const text of texts[field]) {
      const words = wordsOf(text);
      const perTerm = terms.map((term) => spansOf(term, words, field));
      const hit = perTerm.filter((spans) => spans.length > 0).length;
      if (hit === 0) continue;
      if (!matched_in.includes(field)) matched_in.push(field);
      if (best === null || hit > best.hit) best = { field, text, words, spans: perTerm.flat(), hit };
    }
  }
  matched_in.sort((a, b) => MATCH_PLACES.indexOf(a) - MATCH_PLACES.indexOf(b));
  return {
    matched_in,
    highlight: best === null ? null : { field: best.field, html: passage(best.text, best.words, best.spans) },
  };
}
